// scale.cpp — claim rate against the number of backlogged lanes (10 to a
// million) and against the depth of one lane (10 and a million pending).
#include "common.hpp"
#include "sections.hpp"

#include <algorithm>
#include <utility>

namespace bench {
namespace {

constexpr int64_t kLease = 60000;

/// Loads a queue and reports how fast the load went (a figure of its own:
/// the batched path is how a million lanes are filled in seconds).
/// Returns the used_memory it added.
int64_t timed_load(Context &ctx, echomq_client *c, const std::string &q, uint64_t lanes,
                   uint64_t jobs) {
  int64_t m0 = ctx.admin->used_memory();
  auto t0 = Clock::now();
  load(c, q, lanes, jobs, 0);
  double secs = seconds_since(t0);
  Figure f;
  f.section = "load";
  f.name = "batched load, " + count_name(lanes) + " lanes x " + std::to_string(jobs / lanes);
  f.value = double(jobs) / secs;
  f.unit = "jobs/s";
  f.runs = {f.value};
  ctx.out->add(f);
  return ctx.admin->used_memory() - m0;
}

/// ops claims from queue q on one client; claims/s.
double claim_run(echomq_client *c, const std::string &q, uint64_t ops) {
  auto t0 = Clock::now();
  for (uint64_t k = 0; k < ops; ++k) {
    echomq_job *raw = nullptr;
    if (!ok(echomq_claim(c, q.c_str(), kLease, &raw), c, "claim")) return 0.0;
    Job j(raw);
  }
  return double(ops) / seconds_since(t0);
}

/// Every lane count gets its own queue, all loaded before the first run, so
/// the runs of 10 lanes and of a million alternate within each round.
void lanes_scale(Context &ctx, echomq_client *c) {
  const uint64_t claims = ctx.sz.ops1;
  ctx.fresh();
  std::vector<Variant> vs;
  std::vector<std::string> queues;
  for (uint64_t lanes : ctx.sz.lane_counts) {
    const std::string q = ctx.queue + ".lanes." + std::to_string(lanes);
    queues.push_back(q);
    // Deep enough that no lane runs dry during the runs: every claim then
    // takes the same path (the lane stays in the ring).
    uint64_t depth = std::max<uint64_t>(2, (claims * ctx.sz.runs + lanes - 1) / lanes + 1);
    int64_t bytes = timed_load(ctx, c, q, lanes, lanes * depth);
    if (depth == 2) {  // a lane with its two pending jobs, at scale
      Figure mem;
      mem.section = "memory";
      mem.name = "per lane with 2 pending jobs, " + count_name(lanes) + " lanes";
      mem.value = double(bytes) / double(lanes);
      mem.unit = "bytes/lane";
      mem.runs = {mem.value};
      ctx.out->add(mem);
    }
    vs.push_back({"scale-lanes", "claim, " + count_name(lanes) + " backlogged lanes",
                  [c, q, claims](int) { return claim_run(c, q, claims); }});
  }
  ctx.rounds(1, "ops/s", vs, 0, "10 lanes");
  for (size_t i = 0; i < queues.size(); ++i) {
    if (ctx.check) {
      echomq_queue_stats s = stats(c, queues[i]);
      if (s.ring != ctx.sz.lane_counts[i])
        errors().add("scale-lanes: ring " + std::to_string(s.ring) + " in " + queues[i]);
    }
    ctx.checkpoint("scale-lanes", queues[i]);
  }
}

/// Claim at a constant depth: each step enqueues one job and claims one, so
/// the lane keeps its depth through the runs. Both depths are loaded first
/// and their runs alternate.
void depth_scale(Context &ctx, echomq_client *c) {
  const uint64_t steps = ctx.sz.ops1 / 2;
  ctx.fresh();
  std::vector<Variant> vs;
  std::vector<std::pair<std::string, uint64_t>> queues;
  for (uint64_t depth : {uint64_t(10), ctx.sz.deep}) {
    const std::string q = ctx.queue + ".depth." + std::to_string(depth);
    queues.push_back({q, depth});
    load(c, q, 1, depth, 0);
    vs.push_back({"scale-depth", "enqueue+claim, 1 lane of " + count_name(depth) + " pending",
                  [c, q, steps](int) {
      const std::string lane = lane_name(0);
      auto t0 = Clock::now();
      for (uint64_t k = 0; k < steps; ++k) {
        if (!ok(echomq_enqueue(c, q.c_str(), lane.c_str(), "", 0, nullptr, nullptr), c,
                "enqueue"))
          return 0.0;
        echomq_job *raw = nullptr;
        if (!ok(echomq_claim(c, q.c_str(), kLease, &raw), c, "claim")) return 0.0;
        Job j(raw);
      }
      return double(steps) / seconds_since(t0);
    }});
  }
  ctx.rounds(1, "pairs/s", vs, 0, "depth 10");
  for (const auto &[q, depth] : queues) {
    if (ctx.check && stats(c, q).pending != depth) errors().add("scale-depth: depth changed");
    ctx.checkpoint("scale-depth", q);
  }
}

/// Claim with many throttled lanes present (out of the ring until their
/// throttle ends) against the same backlogged lanes alone: a throttled lane
/// must cost a claim nothing.
void throttled_scale(Context &ctx, echomq_client *c) {
  const uint64_t claims = ctx.sz.ops1;
  const uint64_t throttled = ctx.sz.lane_counts.size() > 3 ? 10000 : 1000;
  ctx.fresh();
  std::vector<Variant> vs;
  for (bool with : {false, true}) {
    const std::string q = ctx.queue + (with ? ".throttled" : ".plain");
    load(c, q, 100, 100 * ((claims * ctx.sz.runs) / 100 + 2), 0);
    if (with) {
      Batch b(echomq_batch_create());
      for (uint64_t i = 0; i < throttled; ++i) {
        const std::string g = "t" + std::to_string(i);
        echomq_batch_add(b.get(), g.c_str(), "", 0);
        ok(echomq_throttle(c, q.c_str(), g.c_str(), 3600000), c, "throttle");
      }
      ok(echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr), c, "enqueue_batch");
    }
    vs.push_back({"scale-throttled",
                  with ? "claim, 100 lanes + " + count_name(throttled) + " throttled lanes"
                       : "claim, 100 lanes, none throttled",
                  [c, q, claims](int) { return claim_run(c, q, claims); }});
  }
  ctx.rounds(1, "ops/s", vs, 0, "none throttled");
}

}  // namespace

void run_scale(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  lanes_scale(ctx, c.get());
  depth_scale(ctx, c.get());
  throttled_scale(ctx, c.get());
}

}  // namespace bench
