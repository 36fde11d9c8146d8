// cost.cpp — cost mode (docs/architecture.md, "Fairness by work"):
// - the cost workload: two backlogged lanes, 10 ms and 1 ms jobs, one worker
//   engine (one slot) measuring handler time; the heavy lane's share of
//   worker time in count mode against cost mode;
// - the claim rate and server CPU per job of a drain through the engine
//   (no-op handler, 100 lanes) in cost mode against flat, round by round.
#include "common.hpp"
#include "sections.hpp"

#include <chrono>
#include <thread>

namespace bench {
namespace {

void fill(echomq_client *c, const std::string &q, const std::string &g, uint64_t n) {
  Batch b(echomq_batch_create());
  for (uint64_t i = 0; i < n; ++i) echomq_batch_add(b.get(), g.c_str(), "p", 1);
  ok(echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr), c, "enqueue_batch");
}

echomq::WorkerPtr engine(const std::string &url, const std::string &q, unsigned slots) {
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = slots;
  echomq_worker *w = nullptr;
  if (echomq_worker_new(&w, url.c_str(), q.c_str(), &o) != ECHOMQ_OK) return nullptr;
  echomq::WorkerPtr p(w);
  if (echomq_worker_start(w) != ECHOMQ_OK) return nullptr;
  return p;
}

// The heavy lane's share (%) of handler time over `ms` of running.
double heavy_share(Context &ctx, echomq_client *c, bool cost, int64_t ms) {
  ctx.fresh();
  if (cost) ok(echomq_set_cost_mode(c, ctx.queue.c_str(), 5000), c, "set_cost_mode");
  fill(c, ctx.queue, "heavy", 1000);
  fill(c, ctx.queue, "light", 10000);
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

// Jobs/s of draining `jobs` jobs over 100 lanes through one engine with a
// no-op handler; *cpu_us gets the server CPU µs per job (INFO cpu delta).
double drain_rate(Context &ctx, echomq_client *c, bool cost, uint64_t jobs, double *cpu_us) {
  ctx.fresh();
  if (cost) ok(echomq_set_cost_mode(c, ctx.queue.c_str(), 1000), c, "set_cost_mode");
  Batch b(echomq_batch_create());
  for (uint64_t i = 0; i < jobs; ++i) echomq_batch_add(b.get(), ("L" + std::to_string(i % 100)).c_str(), "p", 1);
  ok(echomq_enqueue_batch(c, ctx.queue.c_str(), b.get(), nullptr), c, "enqueue_batch");
  auto w = engine(ctx.url, ctx.queue, 64);
  if (!w) return 0;
  const double cpu0 = ctx.admin->cpu_seconds();
  const auto t0 = Clock::now();
  for (uint64_t n = 0; n < jobs; ++n) {
    echomq_job *j = nullptr;
    if (echomq_worker_next(w.get(), 5000, &j) != ECHOMQ_OK) break;
    echomq_worker_done(w.get(), j);
    echomq_job_free(j);
  }
  echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 10000);
  const double secs = seconds_since(t0);
  *cpu_us = (ctx.admin->cpu_seconds() - cpu0) / double(jobs) * 1e6;
  return double(jobs) / secs;
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
  const uint64_t jobs = ctx.sz.ops8;
  std::vector<double> cpu_flat, cpu_cost;
  ctx.rounds(1, "jobs/s",
             {{"cost", "engine drain, 100 lanes, flat", [&](int) {
                 double cpu = 0;
                 double r = drain_rate(ctx, c.get(), false, jobs, &cpu);
                 cpu_flat.push_back(cpu);
                 return r;
               }},
              {"cost", "engine drain, 100 lanes, cost mode", [&](int) {
                 double cpu = 0;
                 double r = drain_rate(ctx, c.get(), true, jobs, &cpu);
                 cpu_cost.push_back(cpu);
                 return r;
               }}},
             0, "flat");
  Figure f;
  f.section = "cost";
  f.name = "server CPU per job, engine drain, flat";
  f.value = median(cpu_flat);
  f.unit = "us";
  f.runs = cpu_flat;
  ctx.out->add(f);
  f.name = "server CPU per job, engine drain, cost mode";
  f.value = median(cpu_cost);
  f.runs = cpu_cost;
  ctx.out->add(f);
  ctx.checkpoint("cost");
}

}  // namespace bench
