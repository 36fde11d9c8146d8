// The operations of a sharded queue: a lane lives in the shard its group
// hashes to; claims rotate over the shards (one step per claim, as the ring
// does over lanes), skipping a shard that has nothing to give; ids carry
// their shard; figures, lanes, dead jobs, verify and repair are gathered
// from every shard.
#include <algorithm>
#include <cstring>
#include <set>

#include "clock.hpp"
#include "router.hpp"
#include "router_impl.hpp"
#include "validate.hpp"

namespace echomq {
namespace {

// A wait on a sharded queue sleeps on one shard's wake-up list at a time,
// for this long, then on the next: new work in a quiet sharded queue is
// seen within about (shards - 1) slices.
constexpr int64_t kShardWaitSliceMs = 50;
// How deep a sharded queue's dead list can be paged (offset + count).
constexpr uint64_t kShardedDeadDepthMax = 10000;

// The sooner of two "ms to the next due time" (-1 = none).
int64_t sooner(int64_t a, int64_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return std::min(a, b);
}

std::string base36(uint64_t v) {
  const char* digits = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string s;
  do {
    s.insert(s.begin(), digits[v % 36]);
    v /= 36;
  } while (v);
  return s;
}

}  // namespace

std::vector<std::string> Router::createShards(const char* queue, uint32_t n) {
  checkQueueName(queue);
  checkRange("shards", n, 1, kShardsMax);
  if (!mapLoaded_ || mapStale_) loadMap();
  // The primaries in slot order; shard i goes to primary i mod M.
  std::vector<std::string> primaries;
  for (const SlotRange& r : map_)
    if (std::find(primaries.begin(), primaries.end(), r.node()) == primaries.end())
      primaries.push_back(r.node());
  std::vector<std::string> names;
  for (uint32_t i = 0; i < n; ++i) {
    std::string base = std::string(queue) + ".s" + std::to_string(i) + "-";
    std::string name = base + "0";
    for (uint64_t tag = 0; !primaries.empty(); ++tag) {
      name = base + base36(tag);
      const SlotRange* r = rangeOf(map_, queueSlot(name));
      if (r && r->node() == primaries[i % primaries.size()]) break;
      if (tag > 1000000) echomq::fail(kServer, "no tag puts shard " + std::to_string(i) + " on its primary");
    }
    checkQueueName(name.c_str());  // the sharded queue's name leaves room for the suffix
    names.push_back(name);
  }
  std::vector<std::string> stored = seed_.initShards(queue, names);
  forget(queue);
  return stored;
}

std::vector<std::string> Router::queues() {
  if (!mapLoaded_ || mapStale_) loadMap();  // no right to read it: this node's queues
  std::set<std::string> all;
  if (map_.empty()) {
    for (std::string& q : seed_.queues()) all.insert(std::move(q));
  } else {
    std::set<std::string> seen;
    for (const SlotRange& r : map_) {
      if (!seen.insert(r.node()).second) continue;
      // Any shard name served by this primary reaches its client.
      Client& c = nodeClient(r);
      for (std::string& q : c.queues()) all.insert(std::move(q));
    }
  }
  // A sharded queue stands for its shards: list it alone.
  std::set<std::string> hidden;
  for (const std::string& q : all) {
    auto dot = q.rfind(".s");
    if (dot == std::string::npos || dot == 0 || !all.count(q.substr(0, dot))) continue;
    for (const std::string& shard : shardNames(q.substr(0, dot).c_str())) hidden.insert(shard);
  }
  std::vector<std::string> out;
  for (const std::string& q : all)
    if (!hidden.count(q)) out.push_back(q);
  return out;
}

EnqueueResult Router::shardedEnqueue(Shards& s, const std::vector<NewJob>& jobs, int64_t delay_ms,
                                     uint32_t max_attempts, bool keyed, int64_t window_ms,
                                     int64_t keep_ms, uint64_t keep_last, uint64_t estimate, int64_t at_ms,
                                     const JobLimits& limits) {
  seed_.checkEnqueue(jobs, delay_ms, max_attempts, at_ms);  // all of it, before any I/O
  checkEstimate(estimate);
  checkLimits(limits);
  const size_t n = s.size();
  std::vector<std::vector<size_t>> per(n);
  for (size_t k = 0; k < jobs.size(); ++k)
    per[shardOfGroup(jobs[k].group, jobs[k].group_len, n)].push_back(k);
  EnqueueResult out;
  out.ids.assign(jobs.size(), 0);
  out.duplicate.assign(jobs.size(), false);
  size_t done = 0;
  for (size_t i = 0; i < n; ++i) {
    if (per[i].empty()) continue;
    std::vector<NewJob> sub;
    for (size_t k : per[i]) sub.push_back(jobs[k]);
    try {
      EnqueueResult r = onShard(s, i, [&](Client& c, const char* q) {
        if (keyed) return c.enqueueKeyed(q, sub, delay_ms, max_attempts, window_ms, keep_ms, keep_last, estimate, at_ms, limits);
        EnqueueResult e;
        e.ids = c.enqueue(q, sub, delay_ms, max_attempts, keep_ms, keep_last, estimate, at_ms, limits);
        e.duplicate.assign(e.ids.size(), false);
        return e;
      });
      for (size_t j = 0; j < sub.size(); ++j) {
        out.ids[per[i][j]] = toGlobal(r.ids[j], i, n);
        out.duplicate[per[i][j]] = r.duplicate[j];
      }
      done += sub.size();
    } catch (const Error& e) {
      if (done == 0) throw;
      throw Error(e.code(), std::string(e.what()) + " (" + std::to_string(done) + " of the batch's " +
                                std::to_string(jobs.size()) +
                                " jobs were enqueued to other shards: a batch is atomic per shard)");
    }
  }
  return out;
}

ClaimResult Router::shardedClaim(Shards& s, int64_t lease_ms, uint32_t n, bool weighted, bool batch) {
  ClaimResult none;
  const size_t start = s.next;
  for (size_t k = 0; k < s.size(); ++k) {
    size_t i = (start + k) % s.size();
    ClaimResult r = onShard(s, i, [&](Client& c, const char* q) {
      return batch ? c.claimBatch(q, lease_ms, n, weighted) : c.claim(q, lease_ms, n, weighted);
    });
    if (!r.empty) {
      for (Job& j : r.jobs) globalize(j, i, s.size());
      s.next = (i + 1) % s.size();
      return r;
    }
    none.next_due_ms = sooner(none.next_due_ms, r.next_due_ms);
  }
  s.next = (start + 1) % s.size();
  return none;
}

TakeResult Router::shardedSettleClaim(Shards& s, const std::vector<Settlement>& st, int64_t lease_ms,
                                      uint32_t n, bool weighted, const char* flags) {
  const size_t N = s.size();
  // Every settlement checked before any I/O, then sorted by shard.
  std::vector<std::vector<size_t>> per(N);
  std::vector<std::vector<Settlement>> sub(N);
  for (size_t k = 0; k < st.size(); ++k) {
    size_t i = idShard(s, st[k].id);
    Settlement local = st[k];
    local.id = localId(st[k].id, N);
    checkSettlement(local);
    per[i].push_back(k);
    sub[i].push_back(std::move(local));
  }
  TakeResult out;
  out.codes.assign(st.size(), kOk);
  bool accepted = true;
  auto keep = [&](size_t i, const TakeResult& r) {
    for (size_t j = 0; j < per[i].size(); ++j) {
      out.codes[per[i][j]] = r.codes.at(j);
      if (r.codes[j] != kOk) accepted = false;
    }
  };
  const size_t first = s.next;
  // The shards that do not claim settle first; the claiming one settles in
  // its claim's round trip.
  for (size_t i = 0; i < N; ++i) {
    if (sub[i].empty() || (n > 0 && i == first)) continue;
    keep(i, onShard(s, i, [&](Client& c, const char* q) { return c.settleClaim(q, sub[i], lease_ms, 0, weighted, ""); }));
  }
  if (n == 0) return out;
  const bool onlyIfAccepted = flags && std::strchr(flags, 's');
  int64_t due = -1;
  for (size_t k = 0; k < N; ++k) {
    size_t i = (first + k) % N;
    const std::vector<Settlement> nothing;
    const std::vector<Settlement>& mine = k == 0 ? sub[i] : nothing;
    uint32_t want = onlyIfAccepted && !accepted ? 0 : n;
    if (want == 0 && mine.empty()) break;
    TakeResult r = onShard(s, i, [&](Client& c, const char* q) {
      return c.settleClaim(q, mine, lease_ms, want, weighted, flags);
    });
    if (k == 0) keep(i, r);
    if (!r.claimed.empty) {
      for (Job& j : r.claimed.jobs) globalize(j, i, N);
      out.claimed = std::move(r.claimed);
      s.next = (i + 1) % N;
      return out;
    }
    due = sooner(due, r.claimed.next_due_ms);
  }
  s.next = (first + 1) % N;
  out.claimed.next_due_ms = due;
  return out;
}

int64_t Router::shardedExtendMany(Shards& s, const uint64_t* ids, const uint64_t* tokens, size_t n,
                                  int64_t lease_ms, int* statuses) {
  if (n > 0 && (!ids || !tokens)) invalid("ids or tokens is NULL");
  const size_t N = s.size();
  std::vector<std::vector<size_t>> per(N);
  for (size_t k = 0; k < n; ++k) per[idShard(s, ids[k])].push_back(k);
  int64_t until = -1;
  for (size_t i = 0; i < N; ++i) {
    if (per[i].empty()) continue;
    std::vector<uint64_t> lid, tok;
    for (size_t k : per[i]) {
      lid.push_back(localId(ids[k], N));
      tok.push_back(tokens[k]);
    }
    std::vector<int> st(lid.size(), kOk);
    int64_t t = onShard(s, i, [&](Client& c, const char* q) {
      return c.extendMany(q, lid.data(), tok.data(), lid.size(), lease_ms, st.data());
    });
    until = until < 0 ? t : std::min(until, t);  // the earliest new deadline
    if (statuses)
      for (size_t j = 0; j < per[i].size(); ++j) statuses[per[i][j]] = st[j];
  }
  return until;
}

bool Router::shardedWait(Shards& s, int64_t timeout_ms) {
  checkRange("timeout_ms", timeout_ms, 1, kWaitMaxMs);
  const int64_t deadline = steadyMs() + timeout_ms;
  for (size_t k = 0;; ++k) {
    if (canceled_.exchange(false)) echomq::fail(kCanceled, "the wait was canceled");
    int64_t left = deadline - steadyMs();
    if (left <= 0) return false;
    size_t i = (s.next + k) % s.size();
    int64_t slice = s.size() == 1 ? left : std::min(left, kShardWaitSliceMs);
    if (onShard(s, i, [&](Client& c, const char* q) { return c.waitForWork(q, slice); })) return true;
  }
}

ClaimResult Router::shardedBclaim(Shards& s, int64_t lease_ms, int64_t timeout_ms) {
  checkRange("lease_ms", lease_ms, 1, kLeaseMaxMs);
  checkRange("timeout_ms", timeout_ms, 1, kWaitMaxMs);
  const int64_t deadline = steadyMs() + timeout_ms;
  for (;;) {
    ClaimResult r = shardedClaim(s, lease_ms, 1, false, false);
    if (!r.empty) return r;
    int64_t left = deadline - steadyMs();
    if (left <= 0) return r;
    if (r.next_due_ms == 0) continue;  // due work was just brought back
    shardedWait(s, r.next_due_ms > 0 ? std::min(left, r.next_due_ms) : left);
  }
}

QueueStats Router::shardedStats(Shards& s) {
  QueueStats t;
  eachShard(s, [&](Client& c, const char* q, size_t i) {
    QueueStats x = c.stats(q);
    t.lanes += x.lanes;
    t.tenants += x.tenants;  // a tenant lives in one shard (shardOfGroup)
    t.ring += x.ring;
    t.pending += x.pending;
    t.leased += x.leased;
    t.delayed += x.delayed;
    t.dead += x.dead;
    t.paused += x.paused;
    t.enqueued_total += x.enqueued_total;
    t.claimed_total += x.claimed_total;
    t.acked_total += x.acked_total;
    t.failed_total += x.failed_total;
    t.dead_total += x.dead_total;
    t.canceled_total += x.canceled_total;
    t.expired_total += x.expired_total;
    t.bursting += x.bursting;
    if (i == 0) {  // defaults are set on every shard alike
      t.default_weight = x.default_weight;
      t.default_limit = x.default_limit;
      t.default_max_attempts = x.default_max_attempts;
    }
    t.server_time_ms = std::max(t.server_time_ms, x.server_time_ms);
  });
  return t;
}

std::vector<LaneInfo> Router::shardedLanes(Shards& s, const char* after, size_t count, bool& more) {
  // Each shard's first `count` lanes after `after` hold the union's first
  // `count`: merge them by name.
  std::vector<LaneInfo> all;
  more = false;
  eachShard(s, [&](Client& c, const char* q, size_t) {
    bool m = false;
    for (LaneInfo& l : c.lanes(q, after, count, m)) all.push_back(std::move(l));
    more = more || m;
  });
  std::sort(all.begin(), all.end(), [](const LaneInfo& a, const LaneInfo& b) { return a.group < b.group; });
  if (all.size() > count) {
    all.resize(count);
    more = true;
  }
  return all;
}

std::vector<Job> Router::shardedDead(Shards& s, uint64_t offset, size_t count) {
  checkRange("count", static_cast<long long>(count), 1, kPageMax);
  if (offset + count > kShardedDeadDepthMax)
    invalid("a sharded queue's dead list is paged to a depth of " + std::to_string(kShardedDeadDepthMax) +
            " jobs (offset + count)");
  // Each shard's first offset + count dead jobs hold the union's: merge
  // them in the order they died.
  std::vector<Job> all;
  eachShard(s, [&](Client& c, const char* q, size_t i) {
    for (Job& j : c.dead(q, 0, static_cast<size_t>(offset + count))) {
      globalize(j, i, s.size());
      all.push_back(std::move(j));
    }
  });
  std::stable_sort(all.begin(), all.end(), [](const Job& a, const Job& b) {
    return a.dead_at_ms != b.dead_at_ms ? a.dead_at_ms < b.dead_at_ms : a.id < b.id;
  });
  if (offset >= all.size()) return {};
  std::vector<Job> page(all.begin() + static_cast<long>(offset),
                        all.begin() + static_cast<long>(std::min<uint64_t>(all.size(), offset + count)));
  return page;
}

std::string Router::shardedRepair(Shards& s, bool apply, const std::string& cursor, size_t count,
                                  std::vector<std::string>& lines) {
  // The cursor is "<shard>:<that shard's cursor>"; "" starts at shard 0.
  size_t i = 0;
  std::string inner;
  if (!cursor.empty()) {
    auto colon = cursor.find(':');
    if (colon == std::string::npos || colon == 0 || colon > 3 ||
        cursor.find_first_not_of("0123456789") != colon)
      invalid("repair cursor is not one a sharded queue's repair returned");
    i = std::stoul(cursor.substr(0, colon));
    inner = cursor.substr(colon + 1);
    if (i >= s.size()) invalid("repair cursor names a shard the queue does not have");
  }
  std::vector<std::string> mine;
  std::string next = onShard(s, i, [&](Client& c, const char* q) { return c.repair(q, apply, inner, count, mine); });
  for (std::string& l : mine) lines.push_back(s.names[i] + ": " + l);
  if (!next.empty()) return std::to_string(i) + ":" + next;
  return i + 1 < s.size() ? std::to_string(i + 1) + ":" : std::string();
}

}  // namespace echomq
