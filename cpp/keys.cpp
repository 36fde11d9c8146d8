#include "keys.hpp"

namespace echomq {

QueueKeys makeQueueKeys(const std::string& queue) {
  static const char* const kSuffix[kNumKeys] = {
      "seq",     "ring",   "gweight", "glimit", "gactive", "paused", "leases", "delayed",
      "dead",    "lanes",  "glive",   "gserved", "stats",  "config", "wake"};
  QueueKeys k;
  k.queue = queue;
  k.prefix = "emq:{" + queue + "}:";
  for (size_t i = 0; i < kNumKeys; ++i) k.keys[i] = k.prefix + kSuffix[i];
  return k;
}

}  // namespace echomq
