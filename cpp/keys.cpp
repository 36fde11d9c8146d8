#include "keys.hpp"

#include <cstring>

#include "error.hpp"
#include "scripts.hpp"

namespace echomq {

QueueKeys makeQueueKeys(const std::string& queue) {
  QueueKeys k;
  k.queue = queue;
  k.prefix = "emq:{" + queue + "}:";
  for (size_t i = 0; i < scripts::kNumKeyNames; ++i) k.keys.push_back(k.prefix + scripts::kKeyNames[i]);
  return k;
}

const std::string& QueueKeys::key(const char* name) const {
  for (size_t i = 0; i < scripts::kNumKeyNames; ++i)
    if (std::strcmp(scripts::kKeyNames[i], name) == 0) return keys[i];
  fail(kInternal, std::string("no queue key named ") + name);
}

}  // namespace echomq
