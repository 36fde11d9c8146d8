// The router's templates, shared by router.cpp and router_sharded.cpp.
#pragma once

#include <chrono>
#include <cstring>
#include <thread>

#include "error.hpp"
#include "router.hpp"

namespace echomq {

// TRYAGAIN (a slot in migration) refuses a call before it runs: retried
// for about a second, then reported as ETRYAGAIN.
constexpr int kTryAgainRetries = 40;
constexpr int kTryAgainPauseMs = 25;

template <class P, class S>
auto Router::route(const char* queue, P&& plainFn, S&& shardedFn, bool read) -> decltype(plainFn()) {
  if (Shards* s = shardsOf(queue, read)) return shardedFn(*s);
  try {
    return plainFn();
  } catch (const Error& e) {
    if (e.code() != kShards) throw;
    forget(queue);
    Shards* s = shardsOf(queue, true);
    if (!s) throw;
    return shardedFn(*s);
  }
}

template <class F>
auto Router::onShard(const Shards& s, size_t i, F&& f) -> decltype(f(std::declval<Client&>(), "")) {
  const std::string& name = s.names[i];
  for (int attempt = 0;; ++attempt) {
    Client& c = clientFor(name);
    uint64_t moves = c.connection().moves();
    try {
      auto result = f(c, name.c_str());
      if (c.connection().moves() != moves) mapStale_ = true;
      return result;
    } catch (const Error& e) {
      if (c.connection().moves() != moves) mapStale_ = true;
      if (e.code() != kTryAgain || attempt >= kTryAgainRetries) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(kTryAgainPauseMs));
      mapStale_ = true;  // the migration may have ended: ask who serves it now
    }
  }
}

template <class F>
void Router::eachShard(Shards& s, F&& f) {
  for (size_t i = 0; i < s.size(); ++i) onShard(s, i, [&](Client& c, const char* name) {
    f(c, name, i);
    return 0;
  });
}

}  // namespace echomq

namespace echomq {

// The shard of a group (validated first: nothing is hashed unchecked).
inline size_t groupShard(const Router::Shards& s, const char* group) {
  if (!group) invalid("group is NULL");
  return shardOfGroup(group, std::strlen(group), s.size());
}

// The shard of a job id of a sharded queue; ids below n name no job.
inline size_t idShard(const Router::Shards& s, uint64_t id) {
  if (id < s.size()) invalid("job id out of range");
  return shardOfId(id, s.size());
}

// The sharded queue's id of shard i's job `local`.
inline uint64_t toGlobal(uint64_t local, size_t i, size_t n) {
  if (local > (static_cast<uint64_t>(kIdMax) - i) / n)
    fail(kProto, "a shard queue's job id is past what a sharded id can carry");
  return globalId(local, i, n);
}
// A job read from shard i, given the id it has in the sharded queue.
inline void globalize(Job& j, size_t i, size_t n) { j.id = toGlobal(j.id, i, n); }

// Says which shard queue a refusal about job `id` came from.
[[noreturn]] inline void rethrowForJob(const Error& e, const Router::Shards& s, uint64_t id) {
  size_t i = shardOfId(id, s.size());
  throw Error(e.code(), std::string(e.what()) + " (job " + std::to_string(id) + " is job " +
                            std::to_string(localId(id, s.size())) + " of shard queue " + s.names[i] + ")");
}

}  // namespace echomq
