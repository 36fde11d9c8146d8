// cost.cpp — cost mode (docs/architecture.md, "Fairness by work"): the cost
// workload, two backlogged lanes of 10 ms and 1 ms jobs under one worker
// engine (one slot) measuring handler time; the heavy lane's share of worker
// time in count mode against cost mode. What cost mode does to the claim
// rate is measured by the section rate (rate.cpp).
#include "drain.hpp"

#include <chrono>
#include <thread>

namespace bench {
namespace {

// The heavy lane's share (%) of handler time over `ms` of running.
double heavy_share(Context &ctx, echomq_client *c, bool cost, int64_t ms) {
  ctx.fresh();
  if (cost) ok(echomq_set_cost_mode(c, ctx.queue.c_str(), 5000), c, "set_cost_mode");
  fill_named(c, ctx.queue, {"heavy", "light"}, {1000, 10000});
  auto w = engine(ctx.url, ctx.queue, 1);
  if (!w) return 0;
  double heavy = 0, all = 0;
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  while (Clock::now() < end) {
    echomq_job *j = nullptr;
    if (echomq_worker_next(w.get(), 1000, &j) != ECHOMQ_OK) break;
    const bool h = std::string(echomq_job_group(j)) == "heavy";
    const auto t0 = Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(h ? 10 : 1));
    echomq_worker_done(w.get(), j);
    const double took = std::chrono::duration<double>(Clock::now() - t0).count();
    echomq_job_free(j);
    all += took;
    if (h) heavy += took;
  }
  echomq_worker_stop(w.get(), ECHOMQ_STOP_ABANDON, 0);
  return all > 0 ? 100.0 * heavy / all : 0;
}

}  // namespace

void run_cost(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  const int64_t ms = ctx.sz.runs > 2 ? 1500 : 800;
  ctx.measure("cost", "heavy lane's share of worker time, 10 vs 1 ms jobs, count mode", 1, "%",
              [&](int) { return heavy_share(ctx, c.get(), false, ms); });
  ctx.measure("cost", "heavy lane's share of worker time, 10 vs 1 ms jobs, cost mode", 1, "%",
              [&](int) { return heavy_share(ctx, c.get(), true, ms); });
  ctx.checkpoint("cost");
}

}  // namespace bench
