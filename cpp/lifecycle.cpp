// A job's life past claim and settle (lua/cancel.lua, lua/lifeconf.lua;
// docs/architecture.md "Lifecycle"): cancel, time limits, start deadlines,
// the queue-wide ceiling and rate, bursting lane limits. The logic is the
// scripts'; here the calls are validated and written.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "args.hpp"
#include "client.hpp"
#include "error.hpp"
#include "script_reply.hpp"
#include "validate.hpp"

namespace echomq {

int Client::cancelJob(const char* queue, uint64_t id, const std::string& reason, bool removeWaiting) {
  const QueueKeys& k = keysFor(queue);
  if (id == 0 || id > static_cast<uint64_t>(kIdMax)) invalid("job id out of range");
  const std::string why = reason.substr(0, std::min(reason.size(), kReasonMax));
  call<args::Cancel>(Script::Cancel, k).fixed(id, why, removeWaiting ? "r" : "");
  ReplyPtr r = run(Script::Cancel);
  scriptStatus(r.get(), "cancel");
  if (r->elements != 2) echomq::fail(kProto, "cancel: unexpected reply length");
  return static_cast<int>(i64(r.get(), 1, "cancel"));
}

}  // namespace echomq

namespace echomq {

std::vector<std::pair<std::string, uint64_t>> Client::readNotices(const char* queue, const std::string& after,
                                                                  int64_t block_ms) {
  const QueueKeys& k = keysFor(queue);
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& e : readStream(k.key("notice"), after, 1000, block_ms)) {
    // [stream id, "id", job id]
    if (e.size() < 3 || e[1] != "id") echomq::fail(kProto, "cancel notice: unexpected entry");
    out.emplace_back(e[0], std::strtoull(e[2].c_str(), nullptr, 10));
  }
  return out;
}

}  // namespace echomq
