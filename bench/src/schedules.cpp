// schedules.cpp — what periodic jobs cost and how late their ticks fire
// (echomq/schedules.h):
// - a claim on a queue holding 10,000 schedules (1,000 in a quick run), none
//   due, against the same
//   claim on a queue with none, round by round: jobs/s and the server CPU
//   per claim (from the INFO cpu delta), with the ratio;
// - the memory of a schedule (used_memory around 10,000 upserts);
// - lateness, from a tick's due time to its job's enqueue (the fired
//   events' `late`), p50 and p99: a schedule every 100 ms with one idle
//   worker engine, and the same with the engine busy on a backlog of 100
//   lanes whose handlers take 1 ms each.
#include "drain.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace bench {
namespace {

constexpr uint64_t kLanes = 100;

/// 10,000 schedules in a full run; 1,000 in a quick one (the smoke run in CI).
int schedule_count(const Context &ctx) { return ctx.sz.runs >= 5 ? 10000 : 1000; }

/// Upserts n schedules on q, each every day from a day ahead: none due
/// during the run. False after an error (logged).
bool add_idle_schedules(echomq_client *c, const std::string &q, int n) {
  echomq_schedule_options o = ECHOMQ_SCHEDULE_OPTIONS_INIT;
  o.every_ms = 24LL * 3600 * 1000;
  o.lane = "scheduled";
  for (int i = 0; i < n; ++i) {
    const std::string name = "s" + std::to_string(i);
    if (!ok(echomq_schedule_upsert(c, q.c_str(), name.c_str(), &o, nullptr, nullptr), c, "upsert " + name))
      return false;
  }
  return true;
}

void claim_cost(Context &ctx, echomq_client *c) {
  const uint64_t claims = ctx.sz.ops1;
  ctx.fresh();
  const std::string none = ctx.queue + ".sched.none", many = ctx.queue + ".sched.many";
  const uint64_t jobs = kLanes * (claims * ctx.sz.runs / kLanes + 2);
  const Shape flat{"flat", 0, 0};
  if (!fill(c, none, flat, kLanes, jobs) || !fill(c, many, flat, kLanes, jobs)) return;
  const int n = schedule_count(ctx);
  if (!add_idle_schedules(c, many, n)) return;
  const std::string qs[] = {none, many};
  const std::string count = schedule_count(ctx) == 10000 ? "10,000" : "1,000";
  const std::string labels[] = {"no schedules", count + " schedules, none due"};
  paired_claim_cost(ctx, c, "schedules", qs, labels, claims);
  ctx.checkpoint("schedules", many);
}

void memory(Context &ctx, echomq_client *c) {
  const int n = schedule_count(ctx);
  ctx.measure("schedules", "memory per schedule (every, " + count_name(uint64_t(n)) + ")", 1, "bytes", [&](int) {
    ctx.fresh();
    const std::string q = ctx.queue + ".sched.mem";
    if (!fill(c, q, Shape{"flat", 0, 0}, 1, 1)) return 0.0;  // the queue's own keys first
    int64_t before = ctx.admin->used_memory();
    if (!add_idle_schedules(c, q, n)) return 0.0;
    return double(ctx.admin->used_memory() - before) / n;
  });
}

/// The `late` of every fired event on q's stream, in ms.
std::vector<double> fired_lateness(echomq_client *c, const std::string &q) {
  std::vector<double> out;
  std::string after = "0";
  for (;;) {
    echomq_event_list *raw = nullptr;
    if (!ok(echomq_events_read(c, q.c_str(), after.c_str(), 1000, 0, &raw), c, "events " + q)) return out;
    echomq::EventListPtr l(raw);
    size_t n = echomq_event_list_count(l.get());
    if (n == 0) return out;
    for (size_t i = 0; i < n; ++i) {
      std::string type, late;
      for (size_t k = 0; k < echomq_event_list_nfields(l.get(), i); ++k) {
        std::string name = echomq_event_list_name(l.get(), i, k);
        if (name == "type") type = echomq_event_list_value(l.get(), i, k, nullptr);
        if (name == "late") late = echomq_event_list_value(l.get(), i, k, nullptr);
      }
      if (type == "fired") out.push_back(std::stod(late));
      after = echomq_event_list_id(l.get(), i);
    }
  }
}

/// Lateness of `ticks` ticks every 100 ms under one engine of 8 slots;
/// with `backlog` jobs over 100 lanes waiting, handlers sleep 1 ms.
std::vector<double> lateness(Context &ctx, echomq_client *c, uint64_t backlog, int ticks) {
  ctx.fresh();
  const std::string q = ctx.queue + ".sched.late";
  if (!ok(echomq_set_events(c, q.c_str(), 100000, 0), c, "events on")) return {};
  if (backlog && !fill(c, q, Shape{"flat", 0, 0}, kLanes, backlog)) return {};
  echomq::WorkerPtr w = engine(ctx.url, q, 8);
  if (!w) return {};
  std::atomic<bool> quit{false};
  std::thread host([&] {
    while (!quit) {
      echomq_job *j = nullptr;
      if (echomq_worker_next(w.get(), 50, &j) != ECHOMQ_OK) continue;
      if (backlog) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      echomq_worker_done(w.get(), j);
      echomq_job_free(j);
    }
  });
  echomq_schedule_options o = ECHOMQ_SCHEDULE_OPTIONS_INIT;
  o.every_ms = 100;
  o.lane = "ticks";
  ok(echomq_schedule_upsert(c, q.c_str(), "late", &o, nullptr, nullptr), c, "upsert late");
  std::this_thread::sleep_for(std::chrono::milliseconds(100 * (ticks + 1) + 50));
  ok(echomq_schedule_pause(c, q.c_str(), "late"), c, "pause late");
  quit = true;
  host.join();
  echomq_worker_stop(w.get(), ECHOMQ_STOP_ABANDON, 1000);
  return fired_lateness(c, q);
}

void tick_lateness(Context &ctx, echomq_client *c) {
  const int ticks = ctx.sz.runs >= 5 ? 100 : 10;
  for (uint64_t backlog : {uint64_t(0), uint64_t(200000)}) {
    const std::string how = backlog ? "engine busy on a backlog (100 lanes, 1 ms handlers)" : "idle engine";
    std::vector<double> all;
    ctx.measure("schedules", "tick lateness p50, every 100 ms, " + how, 1, "ms", [&](int) {
      std::vector<double> v = lateness(ctx, c, backlog, ticks);
      all.insert(all.end(), v.begin(), v.end());
      return percentile(v, 0.5);
    });
    ctx.measure("schedules", "tick lateness p99, every 100 ms, " + how, 1, "ms", [&](int r) {
      // The p99 over every tick of the p50 runs (one figure, repeated runs
      // would add nothing but time).
      (void)r;
      return percentile(all, 0.99);
    });
  }
}

}  // namespace

void run_schedules(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  claim_cost(ctx, c.get());
  memory(ctx, c.get());
  tick_lateness(ctx, c.get());
}

}  // namespace bench
