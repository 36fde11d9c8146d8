// The router's plumbing and its plain paths: records, the slot map, one
// client per primary, and the dispatch of every call.
#include <cstring>
#include "router.hpp"

#include <algorithm>

#include "error.hpp"
#include "router_impl.hpp"
#include "validate.hpp"

namespace echomq {
namespace {

constexpr size_t kRecordCacheMax = 256;

}  // namespace

size_t shardOfGroup(const char* group, size_t len, size_t n) {
  // A tenant's lanes ("T/L") and the tenant itself ("T/") hash by T alone:
  // the whole tenant lives on one shard, so its limit, pause and rate hold
  // across its lanes (docs/architecture.md, "Lanes inside tenants").
  const void* slash = len > 1 ? std::memchr(group, '/', len) : nullptr;
  if (slash && slash != group) len = static_cast<size_t>(static_cast<const char*>(slash) - group);
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < len; ++i) {
    h ^= static_cast<unsigned char>(group[i]);
    h *= 1099511628211ULL;
  }
  return static_cast<size_t>(h % n);
}

void Router::connect(const std::string& url) {
  ep_ = parseUrl(url);
  mergeTls(ep_.tls, opts_.tls);
  seed_.connect(ep_);
}

void Router::beginCall() {
  canceled_ = false;
  seed_.beginCall();
  for (auto& n : nodes_) n.second->beginCall();
}

std::string Router::confirmWrites() {
  std::string why = seed_.confirmWrites();
  for (auto& n : nodes_) {
    std::string w = n.second->confirmWrites();
    if (!w.empty()) why += (why.empty() ? "" : "; ") + n.first + ": " + w;
  }
  return why;
}

void Router::cancel() {
  canceled_ = true;
  seed_.cancel();
  std::lock_guard<std::mutex> lock(nodesMu_);
  for (auto& n : nodes_) n.second->cancel();
}

Router::Shards* Router::shardsOf(const char* queue, bool read) {
  checkQueueName(queue);
  auto it = shards_.find(queue);
  if (it == shards_.end()) {
    if (!read) return nullptr;
    if (shards_.size() >= kRecordCacheMax) shards_.clear();
    Shards s;
    s.names = seed_.shardNames(queue);
    it = shards_.emplace(queue, std::move(s)).first;
  }
  return it->second.names.empty() ? nullptr : &it->second;
}

std::vector<std::string> Router::shardNames(const char* queue) {
  forget(queue);  // an explicit question reads the record again
  Shards* s = shardsOf(queue, true);
  return s ? s->names : std::vector<std::string>{};
}

void Router::loadMap() {
  std::vector<SlotRange> map;
  try {
    map = readSlotMap(seed_.connection());
  } catch (const Error& e) {
    // A user who may not read the slot map: every shard goes through the
    // one connection that follows MOVED and ASK itself (correct, but in a
    // cluster it hops between primaries).
    if (e.code() != kNoPerm) throw;
  }
  std::lock_guard<std::mutex> lock(nodesMu_);
  map_ = std::move(map);
  // Keep the connections to primaries that still serve slots; drop one that
  // a MOVED re-homed (it no longer talks to the node it is filed under).
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    bool serves = std::any_of(map_.begin(), map_.end(), [&](const SlotRange& r) { return r.node() == it->first; });
    if (serves && it->second->connection().moves() == 0) ++it;
    else it = nodes_.erase(it);
  }
  mapLoaded_ = true;
  mapStale_ = false;
}

Client& Router::clientFor(const std::string& shard) {
  if (!mapLoaded_ || mapStale_) loadMap();
  if (map_.empty()) return seed_;  // a single server
  const SlotRange* r = rangeOf(map_, queueSlot(shard));
  if (!r) {
    loadMap();
    r = rangeOf(map_, queueSlot(shard));
    if (!r) echomq::fail(kServer, "no primary serves the slot of shard queue " + shard);
  }
  return nodeClient(*r);
}

Client& Router::nodeClient(const SlotRange& r) {
  std::string node = r.node();
  auto it = nodes_.find(node);
  if (it != nodes_.end()) return *it->second;
  auto c = std::make_unique<Client>(opts_);
  c->connect(redirected(ep_, r.host.empty() ? ep_.host : r.host, r.port));
  std::lock_guard<std::mutex> lock(nodesMu_);
  return *nodes_.emplace(node, std::move(c)).first->second;
}

std::vector<uint64_t> Router::enqueue(const char* queue, const std::vector<NewJob>& jobs,
                                      int64_t delay_ms, uint32_t max_attempts, int64_t keep_ms,
                                      uint64_t keep_last, uint64_t estimate, int64_t at_ms, const JobLimits& limits) {
  return route(queue,
               [&] {
                 return seed_.enqueue(queue, jobs, delay_ms, max_attempts, keep_ms, keep_last, estimate, at_ms, limits);
               },
               [&](Shards& s) {
                 return shardedEnqueue(s, jobs, delay_ms, max_attempts, false, 0, keep_ms, keep_last, estimate, at_ms,
                                       limits)
                     .ids;
               });
}

EnqueueResult Router::enqueueKeyed(const char* queue, const std::vector<NewJob>& jobs, int64_t delay_ms,
                                   uint32_t max_attempts, int64_t window_ms, int64_t keep_ms,
                                   uint64_t keep_last, uint64_t estimate, int64_t at_ms, const JobLimits& limits) {
  return route(queue,
               [&] {
                 return seed_.enqueueKeyed(queue, jobs, delay_ms, max_attempts, window_ms, keep_ms, keep_last, estimate,
                                           at_ms, limits);
               },
               [&](Shards& s) {
                 return shardedEnqueue(s, jobs, delay_ms, max_attempts, true, window_ms, keep_ms, keep_last, estimate,
                                       at_ms, limits);
               });
}

ClaimResult Router::claim(const char* queue, int64_t lease_ms, uint32_t max, bool weighted) {
  return route(queue, [&] { return seed_.claim(queue, lease_ms, max, weighted); },
               [&](Shards& s) { return shardedClaim(s, lease_ms, max, weighted, false); });
}

ClaimResult Router::claimBatch(const char* queue, int64_t lease_ms, uint32_t n, bool weighted) {
  return route(queue, [&] { return seed_.claimBatch(queue, lease_ms, n, weighted); },
               [&](Shards& s) { return shardedClaim(s, lease_ms, n, weighted, true); });
}

TakeResult Router::settleClaim(const char* queue, const std::vector<Settlement>& st, int64_t lease_ms,
                               uint32_t n, bool weighted, const char* flags) {
  return route(queue, [&] { return seed_.settleClaim(queue, st, lease_ms, n, weighted, flags); },
               [&](Shards& s) { return shardedSettleClaim(s, st, lease_ms, n, weighted, flags); });
}

int64_t Router::extendMany(const char* queue, const uint64_t* ids, const uint64_t* tokens, size_t n,
                           int64_t lease_ms, int* statuses) {
  return route(queue, [&] { return seed_.extendMany(queue, ids, tokens, n, lease_ms, statuses); },
               [&](Shards& s) { return shardedExtendMany(s, ids, tokens, n, lease_ms, statuses); });
}

ClaimResult Router::bclaim(const char* queue, int64_t lease_ms, int64_t timeout_ms) {
  return route(queue, [&] { return seed_.bclaim(queue, lease_ms, timeout_ms); },
               [&](Shards& s) { return shardedBclaim(s, lease_ms, timeout_ms); });
}

bool Router::waitForWork(const char* queue, int64_t timeout_ms) {
  return route(queue, [&] { return seed_.waitForWork(queue, timeout_ms); },
               [&](Shards& s) { return shardedWait(s, timeout_ms); }, true);
}

int Router::ack(const char* queue, uint64_t id, uint64_t token) {
  return route(queue, [&] { return seed_.ack(queue, id, token); }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      return onShard(s, i, [&](Client& c, const char* name) { return c.ack(name, localId(id, s.size()), token); });
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
  });
}

size_t Router::ackMany(const char* queue, const uint64_t* ids, const uint64_t* tokens, size_t n,
                       int* statuses) {
  return route(queue, [&] { return seed_.ackMany(queue, ids, tokens, n, statuses); }, [&](Shards& s) {
    std::vector<Settlement> st(n);
    for (size_t i = 0; i < n; ++i) st[i] = Settlement{ids ? ids[i] : 0, tokens ? tokens[i] : 0, true, 0, {}, {}};
    TakeResult r = shardedSettleClaim(s, st, 0, 0, false, "");
    size_t acked = 0;
    for (size_t i = 0; i < n; ++i) {
      if (statuses) statuses[i] = r.codes[i];
      if (r.codes[i] == kOk) ++acked;
    }
    return acked;
  });
}

ClaimResult Router::ackClaim(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms) {
  return route(queue, [&] { return seed_.ackClaim(queue, id, token, lease_ms); }, [&](Shards& s) {
    checkRange("lease_ms", lease_ms, 1, kLeaseMaxMs);
    ack(queue, id, token);  // refusals reported as ack() reports them
    return shardedClaim(s, lease_ms, 1, false, false);
  });
}

int Router::fail(const char* queue, uint64_t id, uint64_t token, const char* reason,
                 int64_t retry_delay_ms) {
  return route(queue, [&] { return seed_.fail(queue, id, token, reason, retry_delay_ms); }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      return onShard(s, i, [&](Client& c, const char* name) {
        return c.fail(name, localId(id, s.size()), token, reason, retry_delay_ms);
      });
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
  });
}

int64_t Router::extend(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms, int* status) {
  return route(queue, [&] { return seed_.extend(queue, id, token, lease_ms, status); }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      return onShard(s, i, [&](Client& c, const char* name) {
        return c.extend(name, localId(id, s.size()), token, lease_ms, status);
      });
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
  });
}

// Lane settings go to the lane's shard; queue defaults to every shard.
void Router::setWeight(const char* queue, const char* group, uint32_t weight) {
  route(queue, [&] { seed_.setWeight(queue, group, weight); return 0; }, [&](Shards& s) {
    return onShard(s, groupShard(s, group), [&](Client& c, const char* n) { c.setWeight(n, group, weight); return 0; });
  });
}

void Router::setLimit(const char* queue, const char* group, uint32_t limit) {
  route(queue, [&] { seed_.setLimit(queue, group, limit); return 0; }, [&](Shards& s) {
    return onShard(s, groupShard(s, group), [&](Client& c, const char* n) { c.setLimit(n, group, limit); return 0; });
  });
}

void Router::setPaused(const char* queue, const char* group, bool paused) {
  route(queue, [&] { seed_.setPaused(queue, group, paused); return 0; }, [&](Shards& s) {
    return onShard(s, groupShard(s, group), [&](Client& c, const char* n) { c.setPaused(n, group, paused); return 0; });
  });
}

void Router::setDefault(const char* queue, QueueDefault what, uint32_t value) {
  route(queue, [&] { seed_.setDefault(queue, what, value); return 0; }, [&](Shards& s) {
    eachShard(s, [&](Client& c, const char* n, size_t) { c.setDefault(n, what, value); });
    return 0;
  });
}

void Router::setRate(const char* queue, const char* group, uint32_t jobs, int64_t period_ms, uint32_t burst) {
  route(queue, [&] { seed_.setRate(queue, group, jobs, period_ms, burst); return 0; }, [&](Shards& s) {
    if (!group) {
      eachShard(s, [&](Client& c, const char* n, size_t) { c.setRate(n, nullptr, jobs, period_ms, burst); });
      return 0;
    }
    return onShard(s, groupShard(s, group), [&](Client& c, const char* n) {
      c.setRate(n, group, jobs, period_ms, burst);
      return 0;
    });
  });
}

uint64_t Router::costMode(const char* queue, int64_t quantum) {
  return route(queue, [&] { return seed_.costMode(queue, quantum); }, [&](Shards& s) {
    uint64_t had = 0;
    eachShard(s, [&](Client& c, const char* n, size_t i) {
      uint64_t h = c.costMode(n, quantum);
      if (i == 0) had = h;
    });
    return had;
  });
}

uint64_t Router::waitFigures(const char* queue, int64_t window_s) {
  return route(queue, [&] { return seed_.waitFigures(queue, window_s); }, [&](Shards& s) {
    uint64_t had = 0;
    eachShard(s, [&](Client& c, const char* n, size_t i) {
      uint64_t h = c.waitFigures(n, window_s);
      if (i == 0) had = h;
    });
    return had;
  });
}

void Router::charge(const char* queue, const char* group, uint64_t cost) {
  route(queue, [&] { seed_.charge(queue, group, cost); return 0; }, [&](Shards& s) {
    return onShard(s, groupShard(s, group), [&](Client& c, const char* n) { c.charge(n, group, cost); return 0; });
  });
}

void Router::throttle(const char* queue, const char* group, int64_t ms) {
  route(queue, [&] { seed_.throttle(queue, group, ms); return 0; }, [&](Shards& s) {
    return onShard(s, groupShard(s, group), [&](Client& c, const char* n) { c.throttle(n, group, ms); return 0; });
  });
}

void Router::setCap(const char* queue, const char* group, uint64_t cap) {
  route(queue, [&] { seed_.setCap(queue, group, cap); return 0; }, [&](Shards& s) {
    if (!group) {
      eachShard(s, [&](Client& c, const char* n, size_t) { c.setCap(n, nullptr, cap); });
      return 0;
    }
    return onShard(s, groupShard(s, group), [&](Client& c, const char* n) { c.setCap(n, group, cap); return 0; });
  });
}

QueueStats Router::stats(const char* queue) {
  return route(queue, [&] { return seed_.stats(queue); }, [&](Shards& s) { return shardedStats(s); });
}

LaneInfo Router::lane(const char* queue, const char* group) {
  return route(queue, [&] { return seed_.lane(queue, group); }, [&](Shards& s) {
    return onShard(s, groupShard(s, group), [&](Client& c, const char* n) { return c.lane(n, group); });
  });
}

std::vector<LaneInfo> Router::lanes(const char* queue, const char* after, size_t count, bool& more) {
  return route(queue, [&] { return seed_.lanes(queue, after, count, more); },
               [&](Shards& s) { return shardedLanes(s, after, count, more); });
}

std::vector<Job> Router::dead(const char* queue, uint64_t offset, size_t count) {
  return route(queue, [&] { return seed_.dead(queue, offset, count); },
               [&](Shards& s) { return shardedDead(s, offset, count); });
}

uint64_t Router::redrive(const char* queue, const uint64_t* ids, size_t n) {
  return route(queue, [&] { return seed_.redrive(queue, ids, n); }, [&](Shards& s) {
    if (n > 0 && !ids) invalid("ids is NULL");
    std::vector<std::vector<uint64_t>> per(s.size());
    for (size_t i = 0; i < n; ++i) per[idShard(s, ids[i])].push_back(localId(ids[i], s.size()));
    uint64_t total = 0;
    for (size_t i = 0; i < s.size(); ++i)
      if (!per[i].empty())
        total += onShard(s, i, [&](Client& c, const char* q) { return c.redrive(q, per[i].data(), per[i].size()); });
    return total;
  });
}

uint64_t Router::redriveAll(const char* queue) {
  return route(queue, [&] { return seed_.redriveAll(queue); }, [&](Shards& s) {
    uint64_t total = 0;
    eachShard(s, [&](Client& c, const char* q, size_t) { total += c.redriveAll(q); });
    return total;
  });
}

std::vector<std::string> Router::verify(const char* queue) {
  return route(queue, [&] { return seed_.verify(queue); }, [&](Shards& s) {
    std::vector<std::string> out;
    eachShard(s, [&](Client& c, const char* q, size_t) {
      for (std::string& line : c.verify(q)) out.push_back(std::string(q) + ": " + line);
    });
    return out;
  });
}

Job Router::getJob(const char* queue, uint64_t id) {
  return route(queue, [&] { return seed_.getJob(queue, id); }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      Job j = onShard(s, i, [&](Client& c, const char* q) { return c.getJob(q, localId(id, s.size())); });
      globalize(j, i, s.size());
      return j;
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
  });
}

void Router::deleteJob(const char* queue, uint64_t id) {
  route(queue, [&] { seed_.deleteJob(queue, id); return 0; }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      onShard(s, i, [&](Client& c, const char* q) { c.deleteJob(q, localId(id, s.size())); return 0; });
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
    return 0;
  });
}

uint64_t Router::purgeLane(const char* queue, const char* group, uint32_t max, bool clear_settings,
                           uint64_t& cursor, bool& more) {
  return route(queue, [&] { return seed_.purgeLane(queue, group, max, clear_settings, cursor, more); },
               [&](Shards& s) {
                 return onShard(s, groupShard(s, group), [&](Client& c, const char* q) {
                   return c.purgeLane(q, group, max, clear_settings, cursor, more);
                 });
               });
}

std::string Router::repair(const char* queue, bool apply, const std::string& cursor, size_t count,
                           std::vector<std::string>& lines) {
  return route(queue, [&] { return seed_.repair(queue, apply, cursor, count, lines); },
               [&](Shards& s) { return shardedRepair(s, apply, cursor, count, lines); });
}

std::vector<DoctorLine> Router::doctor(const char* queue, const char* acl_user) {
  try {
    shardsOf(queue, true);  // doctor runs no script: learn the queue's shape first
  } catch (const Error& e) {
    if (e.code() != kNoPerm) throw;  // a user who may not read it: checked as plain
  }
  return route(queue, [&] { return seed_.doctor(queue, acl_user); }, [&](Shards& s) {
    std::vector<DoctorLine> out;
    eachShard(s, [&](Client& c, const char* q, size_t) {
      for (DoctorLine& d : c.doctor(q, acl_user)) out.push_back({d.level, std::string(q) + ": " + d.text});
    });
    return out;
  });
}

}  // namespace echomq
