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

void run_floor(Context &ctx) {
  for (int n : {1, 8}) {
    FloorProbe probe(ctx.url, n);
    const uint64_t ops = n == 1 ? ctx.sz.ops1 : ctx.sz.ops8;
    Figure &f = ctx.measure("floor", "EVALSHA 'return 1' (hiredis)", n, "calls/s",
                            [&](int) { return probe.sample(ops); });
    f.ratio = 1.0;
    f.ratio_to = "floor";
  }
}

}  // namespace bench
