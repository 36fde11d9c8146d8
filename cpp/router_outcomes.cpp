// The outcome calls, routed (cpp/outcomes.cpp). A sharded queue's
// settings go to every shard; a job's wait and progress go to its shard.
// Each shard queue has its own event stream: read them one by one.
#include "router.hpp"
#include "router_impl.hpp"

namespace echomq {

void Router::setRetention(const char* queue, int64_t keep_ms, uint64_t keep_last) {
  route(queue, [&] { seed_.setRetention(queue, keep_ms, keep_last); return 0; }, [&](Shards& s) {
    eachShard(s, [&](Client& c, const char* n, size_t) { c.setRetention(n, keep_ms, keep_last); });
    return 0;
  });
}

void Router::clearRetention(const char* queue) {
  route(queue, [&] { seed_.clearRetention(queue); return 0; }, [&](Shards& s) {
    eachShard(s, [&](Client& c, const char* n, size_t) { c.clearRetention(n); });
    return 0;
  });
}

void Router::setEvents(const char* queue, uint64_t maxlen, bool enqueued) {
  route(queue, [&] { seed_.setEvents(queue, maxlen, enqueued); return 0; }, [&](Shards& s) {
    eachShard(s, [&](Client& c, const char* n, size_t) { c.setEvents(n, maxlen, enqueued); });
    return 0;
  });
}

void Router::clearEvents(const char* queue) {
  route(queue, [&] { seed_.clearEvents(queue); return 0; }, [&](Shards& s) {
    eachShard(s, [&](Client& c, const char* n, size_t) { c.clearEvents(n); });
    return 0;
  });
}

OutcomeSettings Router::outcomeSettings(const char* queue) {
  // Every shard is set alike: the first one answers for all.
  return route(queue, [&] { return seed_.outcomeSettings(queue); }, [&](Shards& s) {
    OutcomeSettings o;
    eachShard(s, [&](Client& c, const char* n, size_t i) {
      if (i == 0) o = c.outcomeSettings(n);
    });
    return o;
  });
}

void Router::progress(const char* queue, uint64_t id, uint64_t token, const char* value, size_t len) {
  route(queue, [&] { seed_.progress(queue, id, token, value, len); return 0; }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      onShard(s, i, [&](Client& c, const char* q) { c.progress(q, localId(id, s.size()), token, value, len); return 0; });
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
    return 0;
  });
}

bool Router::waitJob(const char* queue, uint64_t id, int64_t timeout_ms, Job& out) {
  return route(queue, [&] { return seed_.waitJob(queue, id, timeout_ms, out); }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      bool done = onShard(s, i, [&](Client& c, const char* q) {
        return c.waitJob(q, localId(id, s.size()), timeout_ms, out);
      });
      if (done) globalize(out, i, s.size());
      return done;
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
  });
}

std::vector<std::vector<std::string>> Router::readEvents(const char* queue, const std::string& after,
                                                         size_t count, int64_t block_ms) {
  return route(queue, [&] { return seed_.readEvents(queue, after, count, block_ms); },
               [&](Shards&) -> std::vector<std::vector<std::string>> {
                 echomq::fail(kShards, std::string("queue ") + queue +
                                   " is sharded: each shard queue has its own event stream (echomq_shards)");
               },
               true);
}

}  // namespace echomq
