// The lifecycle calls of a sharded queue (cpp/lifecycle.cpp for a plain
// one): a job's call goes to the shard its id names.
#include "router_impl.hpp"

namespace echomq {

int Router::cancelJob(const char* queue, uint64_t id, const std::string& reason, bool removeWaiting) {
  return route(queue, [&] { return seed_.cancelJob(queue, id, reason, removeWaiting); }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      return onShard(s, i, [&](Client& c, const char* q) {
        return c.cancelJob(q, localId(id, s.size()), reason, removeWaiting);
      });
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
  });
}

}  // namespace echomq

namespace echomq {

std::vector<std::pair<std::string, uint64_t>> Router::readNotices(const char* queue, const std::string& after,
                                                                  int64_t block_ms) {
  return route(queue, [&] { return seed_.readNotices(queue, after, block_ms); },
               [&](Shards&) -> std::vector<std::pair<std::string, uint64_t>> {
                 echomq::fail(kShards, "cancel notices: a sharded queue's engines learn of a cancel at the next extension");
               });
}

}  // namespace echomq
