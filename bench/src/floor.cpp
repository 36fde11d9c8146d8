// floor.cpp — the round-trip limit: a raw hiredis loop of EVALSHA of
// `return 1`, the cheapest script call a client can make. Every EchoMQ
// figure is read against it at the same client count.
#include "common.hpp"
#include "sections.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <atomic>

namespace bench {
namespace {

constexpr const char *kScript = "return 1";

/// SCRIPT LOAD on c; returns the SHA1 or "" on error.
std::string load_script(redisContext *c) {
  auto *r = static_cast<redisReply *>(redisCommand(c, "SCRIPT LOAD %s", kScript));
  std::string sha = r && r->type == REDIS_REPLY_STRING ? std::string(r->str, r->len) : "";
  if (r) freeReplyObject(r);
  return sha;
}

/// n EVALSHA calls on c; false on the first bad reply.
bool call_loop(redisContext *c, const std::string &sha, uint64_t n) {
  const char *argv[] = {"EVALSHA", sha.c_str(), "0"};
  const size_t lens[] = {7, sha.size(), 1};
  for (uint64_t i = 0; i < n; ++i) {
    auto *r = static_cast<redisReply *>(redisCommandArgv(c, 3, argv, lens));
    bool good = r && r->type == REDIS_REPLY_INTEGER && r->integer == 1;
    if (r) freeReplyObject(r);
    if (!good) return false;
  }
  return true;
}

}  // namespace

FloorProbe::FloorProbe(const std::string &url, int clients) {
  for (int i = 0; i < clients; ++i) {
    cs_.push_back(open_context(url));
    if (!cs_.back()) errors().add("floor: cannot connect with hiredis");
  }
  if (cs_[0]) sha_ = load_script(cs_[0]);
  if (sha_.empty()) errors().add("floor: SCRIPT LOAD failed");
}

FloorProbe::~FloorProbe() {
  for (auto *c : cs_)
    if (c) redisFree(c);
}

double FloorProbe::sample(uint64_t ops) {
  if (sha_.empty()) return 0;
  const int n = int(cs_.size());
  const uint64_t share = std::max<uint64_t>(1, ops / n);
  std::atomic<bool> good{true};
  double secs = parallel(n, [&](int i) {
    if (!cs_[i] || !call_loop(cs_[i], sha_, share)) good = false;
  });
  if (!good) {
    errors().add("floor: EVALSHA failed");
    return 0;
  }
  return double(share * n) / secs;
}

namespace {

// The smallest script shaped like a claim (the issue's reference shape):
// rotate the ring, pop the lane head, read the clock, bump the attempt
// count, lease it, read the payload. EchoMQ's claim does this and keeps the
// lane/ring invariants, counters and expiry on top.
constexpr const char *kShape = R"(
local g = redis.call('LMOVE', KEYS[1], KEYS[1], 'LEFT', 'RIGHT')
if not g then return false end
local id = redis.call('ZPOPMIN', ARGV[1] .. 'p:' .. g)[1]
local t = redis.call('TIME')
local token = redis.call('HINCRBY', ARGV[1] .. 'j:' .. id, 'attempts', 1)
redis.call('ZADD', KEYS[2], tonumber(t[1]) * 1000 + 60000, id)
local f = redis.call('HMGET', ARGV[1] .. 'j:' .. id, 'payload', 'group')
return {id, g, f[1], token}
)";
constexpr const char *kShapePrefix = "shape:{s}:";

bool pipeline_ok(redisContext *c, size_t n) {
  bool good = true;
  for (size_t i = 0; i < n; ++i) {
    void *r = nullptr;
    if (redisGetReply(c, &r) != REDIS_OK || !r) return false;
    if (static_cast<redisReply *>(r)->type == REDIS_REPLY_ERROR) good = false;
    freeReplyObject(r);
  }
  return good;
}

}  // namespace

ShapeProbe::ShapeProbe(const std::string &url, int clients) {
  for (int i = 0; i < clients; ++i) {
    cs_.push_back(open_context(url));
    if (!cs_.back()) errors().add("shape: cannot connect with hiredis");
  }
  if (!cs_[0]) return;
  auto *r = static_cast<redisReply *>(redisCommand(cs_[0], "SCRIPT LOAD %s", kShape));
  if (r && r->type == REDIS_REPLY_STRING) sha_.assign(r->str, r->len);
  if (r) freeReplyObject(r);
  if (sha_.empty()) errors().add("shape: SCRIPT LOAD failed");
}

ShapeProbe::~ShapeProbe() {
  for (auto *c : cs_)
    if (c) redisFree(c);
}

double ShapeProbe::sample(uint64_t ops, uint64_t lanes) {
  if (sha_.empty()) return 0;
  redisContext *c = cs_[0];
  const std::string pre = kShapePrefix, ring = pre + "ring", leases = pre + "leases";
  // Set-up, pipelined: `lanes` lanes in the ring, ops jobs spread over them.
  redisAppendCommand(c, "DEL %s %s", ring.c_str(), leases.c_str());
  size_t sent = 1;
  for (uint64_t l = 0; l < lanes; ++l, ++sent)
    redisAppendCommand(c, "RPUSH %s l%llu", ring.c_str(), (unsigned long long)l);
  for (uint64_t k = 0; k < ops; ++k) {
    const std::string id = std::to_string(k), lane = "l" + std::to_string(k % lanes);
    redisAppendCommand(c, "ZADD %s %s %s", (pre + "p:" + lane).c_str(), id.c_str(), id.c_str());
    redisAppendCommand(c, "HSET %s group %s payload xxxxxxxxxxxxxxxx attempts 0",
                       (pre + "j:" + id).c_str(), lane.c_str());
    sent += 2;
  }
  if (!pipeline_ok(c, sent)) {
    errors().add("shape: set-up failed");
    return 0;
  }
  const int n = int(cs_.size());
  const uint64_t share = ops / n;
  std::atomic<bool> good{true};
  double secs = parallel(n, [&](int i) {
    const char *argv[] = {"EVALSHA", sha_.c_str(), "2", ring.c_str(), leases.c_str(), pre.c_str()};
    const size_t lens[] = {7, sha_.size(), 1, ring.size(), leases.size(), pre.size()};
    for (uint64_t k = 0; k < share && good; ++k) {
      auto *r = static_cast<redisReply *>(redisCommandArgv(cs_[i], 6, argv, lens));
      if (!r || r->type != REDIS_REPLY_ARRAY) good = false;
      if (r) freeReplyObject(r);
    }
  });
  if (!good) {
    errors().add("shape: EVALSHA failed");
    return 0;
  }
  return double(share * n) / secs;
}

void run_floor(Context &ctx) {
  for (int n : {1, 8}) {
    FloorProbe probe(ctx.url, n);
    const uint64_t ops = n == 1 ? ctx.sz.ops1 : ctx.sz.ops8;
    Figure &f = ctx.measure("floor", "EVALSHA 'return 1' (hiredis)", n, "calls/s",
                            [&](int) { return probe.sample(ops); });
    f.ratio = 1.0;
    f.ratio_to = "floor";
  }
  run_script_floor(ctx);
}

}  // namespace bench
