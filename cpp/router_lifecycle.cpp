// The lifecycle calls of a sharded queue (cpp/lifecycle.cpp for a plain
// one): a job's call goes to the shard its id names.
#include "router_impl.hpp"
#include "validate.hpp"

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

namespace echomq {

// A sharded queue's queue-wide settings (docs/operations.md, "Sharded
// queues"): the default time limit goes to every shard; the ceiling and
// the rate are split between the shards, so that the shards' add up to the
// queue's exactly (a shard cannot see the others' leases in one script: a
// shared count would need a cross-slot call on every claim). Shard i gets
// n / S, and one more while i < n mod S; each needs at least 1.
namespace {
uint32_t shareOf(uint32_t n, size_t i, size_t shards, const char* what) {
  if (n > 0 && n < shards)
    invalid(std::string(what) + " " + std::to_string(n) + " is split between " + std::to_string(shards) +
            " shard queues: each needs at least 1");
  return static_cast<uint32_t>(n / shards + (i < n % shards ? 1 : 0));
}
}  // namespace

void Router::setDefaultTimeout(const char* queue, int64_t timeout_ms) {
  route(queue, [&] { seed_.setDefaultTimeout(queue, timeout_ms); return 0; }, [&](Shards& s) {
    eachShard(s, [&](Client& c, const char* n, size_t) { c.setDefaultTimeout(n, timeout_ms); });
    return 0;
  });
}

void Router::setQueueLimit(const char* queue, uint32_t limit) {
  route(queue, [&] { seed_.setQueueLimit(queue, limit); return 0; }, [&](Shards& s) {
    checkRange("queue limit", limit, 0, kLimitMax);  // all of it, before any I/O
    shareOf(limit, 0, s.size(), "queue limit");
    eachShard(s, [&](Client& c, const char* n, size_t i) { c.setQueueLimit(n, shareOf(limit, i, s.size(), "")); });
    return 0;
  });
}

void Router::setQueueRate(const char* queue, uint32_t jobs, int64_t period_ms, uint32_t burst) {
  route(queue, [&] { seed_.setQueueRate(queue, jobs, period_ms, burst); return 0; }, [&](Shards& s) {
    checkRange("queue rate jobs", jobs, 0, kRateJobsMax);
    checkRange("queue rate period_ms", period_ms, 1, kRatePeriodMaxMs);
    checkRange("queue rate burst", burst, 0, kRateJobsMax);
    shareOf(jobs, 0, s.size(), "queue rate");
    shareOf(burst, 0, s.size(), "queue rate burst");
    eachShard(s, [&](Client& c, const char* n, size_t i) {
      c.setQueueRate(n, shareOf(jobs, i, s.size(), ""), period_ms, shareOf(burst, i, s.size(), ""));
    });
    return 0;
  });
}

LifeSettings Router::lifeSettings(const char* queue) {
  return route(queue, [&] { return seed_.lifeSettings(queue); }, [&](Shards& s) {
    LifeSettings sum;
    eachShard(s, [&](Client& c, const char* n, size_t i) {
      LifeSettings one = c.lifeSettings(n);
      if (i == 0) {
        sum = one;
        return;
      }
      sum.queue_limit += one.queue_limit;
      sum.rate_jobs += one.rate_jobs;
      sum.rate_burst += one.rate_burst;
      sum.leased += one.leased;
      if (one.tokens >= 0) sum.tokens = (sum.tokens < 0 ? 0 : sum.tokens) + one.tokens;
      if (one.next_token_at_ms > 0 && (sum.next_token_at_ms == 0 || one.next_token_at_ms < sum.next_token_at_ms))
        sum.next_token_at_ms = one.next_token_at_ms;
    });
    return sum;
  });
}

}  // namespace echomq

namespace echomq {

// A lane's (or tenant's) burst ceiling goes to its shard: a lane's rings live there.
void Router::setLimitBurst(const char* queue, const char* group, uint32_t limit, uint32_t burst) {
  route(queue, [&] { seed_.setLimitBurst(queue, group, limit, burst); return 0; }, [&](Shards& s) {
    return onShard(s, groupShard(s, group), [&](Client& c, const char* n) {
      c.setLimitBurst(n, group, limit, burst);
      return 0;
    });
  });
}

}  // namespace echomq
