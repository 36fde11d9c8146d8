// The router: the client the C API and the worker engine talk through. A
// plain queue's calls go straight to one Client (one connection, which
// follows MOVED and ASK itself). A sharded queue (a queue whose record names
// N shard queues, lua/shardinit.lua) is served here: a lane lives in the
// shard its group hashes to, so every script stays single-slot; claims
// rotate over the shards; ids carry their shard; figures are summed. In a
// cluster the router reads the slot map, keeps one connection per primary
// for the shards, refreshes the map after a MOVED and retries TRYAGAIN
// (the script did not run). Not thread-safe (one thread at a time), except
// cancel(). docs/operations.md ("Sharded queues") states the fairness bound.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "client.hpp"
#include "slots.hpp"

namespace echomq {

class Router {
 public:
  explicit Router(const ClientOptions& opts) : opts_(opts), seed_(opts) {}

  void connect(const std::string& url);
  bool connected() const { return seed_.connected(); }
  void beginCall();
  std::string confirmWrites();
  // Thread-safe: interrupts the cancellable call in progress (bclaim,
  // waitForWork), on whichever connection it waits.
  void cancel();
  void ping() { seed_.ping(); }

  // Sharded queues. Creates queue over n shard queues (1..kShardsMax), named
  // "<queue>.s<i>-<tag>" with tags chosen so that shard i lands on primary
  // i mod M of the cluster; or opens it when it exists with n. Returns the
  // shard queues' names. ESHARDS: another n, or a plain queue in use.
  std::vector<std::string> createShards(const char* queue, uint32_t n);
  // The shard queues' names (empty: a plain queue). Read once, then cached.
  std::vector<std::string> shardNames(const char* queue);

  // The operations of Client, routed (cpp/queue_ops.inc documents each).
  // For a sharded queue: costMode sets (or reads) every shard queue (a
  // lane's balance lives in its shard, which serves it); queues() lists
  // every queue of every primary, a sharded queue's shard queues not apart
  // from it.
#include "queue_ops.inc"

  // A sharded queue's shape: its shard queues and the claim ring's position.
  struct Shards {
    std::vector<std::string> names;
    size_t next = 0;  // the shard the next claim starts at
    size_t size() const { return names.size(); }
  };

 private:
  // The record of queue as cached: nullptr for a plain queue. A queue not
  // cached yet is taken as plain without a round trip (read = false: every
  // script refuses a sharded queue's name with ESHARDS, and route() then
  // reads the record) or read now (read = true: the calls that run no
  // script first, waitForWork and doctor).
  Shards* shardsOf(const char* queue, bool read);
  void forget(const char* queue) { shards_.erase(queue); }
  // Runs plainFn, or shardedFn for a sharded queue; a plain call refused
  // with ESHARDS (the queue became sharded since it was cached; nothing ran)
  // reads the record again and goes to the shards.
  template <class P, class S>
  auto route(const char* queue, P&& plainFn, S&& shardedFn, bool read = false) -> decltype(plainFn());
  // Runs f(client, shard queue name) on shard i's primary; retries TRYAGAIN
  // (nothing ran) and marks the slot map stale after a MOVED.
  template <class F>
  auto onShard(const Shards& s, size_t i, F&& f) -> decltype(f(std::declval<Client&>(), ""));
  Client& clientFor(const std::string& shard);
  Client& nodeClient(const SlotRange& r);
  void loadMap();

  // The sharded operations (cpp/router_sharded.cpp).
  EnqueueResult shardedEnqueue(Shards& s, const std::vector<NewJob>& jobs, int64_t delay_ms,
                               uint32_t max_attempts, bool keyed, int64_t window_ms, int64_t keep_ms,
                               uint64_t keep_last, uint64_t estimate, int64_t at_ms,
                               const JobLimits& limits);
  ClaimResult shardedClaim(Shards& s, int64_t lease_ms, uint32_t n, bool weighted, bool batch);
  TakeResult shardedSettleClaim(Shards& s, const std::vector<Settlement>& st, int64_t lease_ms,
                                uint32_t n, bool weighted, const char* flags);
  int64_t shardedExtendMany(Shards& s, const uint64_t* ids, const uint64_t* tokens, size_t n,
                            int64_t lease_ms, int* statuses);
  bool shardedWait(Shards& s, int64_t timeout_ms);
  ClaimResult shardedBclaim(Shards& s, int64_t lease_ms, int64_t timeout_ms);
  QueueStats shardedStats(Shards& s);
  std::vector<LaneInfo> shardedLanes(Shards& s, const char* after, size_t count, bool& more);
  std::vector<Job> shardedDead(Shards& s, uint64_t offset, size_t count);
  std::string shardedRepair(Shards& s, bool apply, const std::string& cursor, size_t count,
                            std::vector<std::string>& lines);
  // Runs f on every shard in order.
  template <class F>
  void eachShard(Shards& s, F&& f);

  ClientOptions opts_;
  Client seed_;  // plain queues and the records
  Endpoint ep_;
  bool mapLoaded_ = false, mapStale_ = false;
  std::vector<SlotRange> map_;  // empty: not a cluster
  std::mutex nodesMu_;          // cancel() walks nodes_ from another thread
  std::map<std::string, std::unique_ptr<Client>> nodes_;  // "host:port" -> its client
  std::unordered_map<std::string, Shards> shards_;        // queue -> record (names empty: plain)
  std::atomic<bool> canceled_{false};
};

// A sharded queue's job ids carry their shard: global = local * n + shard.
inline uint64_t globalId(uint64_t local, size_t shard, size_t n) { return local * n + shard; }
inline size_t shardOfId(uint64_t global, size_t n) { return static_cast<size_t>(global % n); }
inline uint64_t localId(uint64_t global, size_t n) { return global / n; }
// The shard of a group: FNV-1a of its bytes, modulo n (stable everywhere).
size_t shardOfGroup(const char* group, size_t len, size_t n);

}  // namespace echomq
