// lifecycle.cpp — what the lifecycle's limits cost and give (echomq/lifecycle.h):
// - a claim on a queue with a queue-wide ceiling set (never reached) against
//   the same claim with none, round by round: jobs/s and the server CPU per
//   claim (from the INFO cpu delta), with the ratio;
// - a lane limit that bursts against a hard one, on one busy lane (limit 2,
//   a deep backlog) among 9 quiet lanes that get a job every 50 ms, served
//   by one engine of 8 slots whose handlers take 2 ms: the busy lane's
//   throughput and the quiet lanes' p99 wait (enqueue to handler start).
#include "drain.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace bench {
namespace {

constexpr uint64_t kLanes = 100;

void claim_cost(Context &ctx, echomq_client *c) {
  const uint64_t claims = ctx.sz.ops1;
  ctx.fresh();
  const std::string none = ctx.queue + ".life.none", gated = ctx.queue + ".life.gated";
  const uint64_t jobs = kLanes * (claims * ctx.sz.runs / kLanes + 2);
  const Shape flat{"flat", 0, 0};
  if (!fill(c, none, flat, kLanes, jobs) || !fill(c, gated, flat, kLanes, jobs)) return;
  if (!ok(echomq_set_queue_limit(c, gated.c_str(), ECHOMQ_LIMIT_MAX), c, "queue limit")) return;
  const std::string qs[] = {none, gated};
  const std::string labels[] = {"no queue limit", "a queue limit (never reached)"};
  paired_claim_cost(ctx, c, "lifecycle", qs, labels, claims);
  ctx.checkpoint("lifecycle", gated);
}

struct BurstRun {
  double busy_per_s = 0;
  std::vector<double> quiet_waits_ms;
};

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch()).count();
}

/// One run of `seconds`: the busy lane's limit 2, with burst 8 or none.
BurstRun burst_run(Context &ctx, echomq_client *c, bool burst, double seconds) {
  BurstRun out;
  ctx.fresh();
  const std::string q = ctx.queue + ".life.burst";
  if (!ok(burst ? echomq_set_limit_burst(c, q.c_str(), "busy", 2, 8) : echomq_set_limit(c, q.c_str(), "busy", 2), c,
          "busy limit"))
    return out;
  if (!fill_named(c, q, {"busy"}, {20000})) return out;
  echomq::WorkerPtr w = engine(ctx.url, q, 8);
  if (!w) return out;
  std::atomic<bool> quit{false};
  std::atomic<uint64_t> busy{0};
  std::mutex mu;
  std::vector<std::thread> hosts;
  for (int i = 0; i < 8; ++i) {
    hosts.emplace_back([&] {
      while (!quit) {
        echomq_job *j = nullptr;
        if (echomq_worker_next(w.get(), 50, &j) != ECHOMQ_OK) continue;
        if (std::string(echomq_job_group(j)) == "busy") {
          ++busy;
        } else {
          size_t n = 0;
          const char *p = echomq_job_payload(j, &n);
          const double wait = double(now_us() - std::stoll(std::string(p, n))) / 1000.0;
          std::lock_guard<std::mutex> lk(mu);
          out.quiet_waits_ms.push_back(wait);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        echomq_worker_done(w.get(), j);
        echomq_job_free(j);
      }
    });
  }
  Client producer(ctx.url);
  const auto t0 = Clock::now();
  const uint64_t busy0 = busy;
  while (seconds_since(t0) < seconds) {
    for (int k = 0; k < 9; ++k) {
      const std::string lane = "quiet" + std::to_string(k), stamp = std::to_string(now_us());
      ok(echomq_enqueue(producer.get(), q.c_str(), lane.c_str(), stamp.data(), stamp.size(), nullptr, nullptr),
         producer.get(), "enqueue quiet");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  out.busy_per_s = double(busy - busy0) / seconds_since(t0);
  quit = true;
  for (auto &h : hosts) h.join();
  echomq_worker_stop(w.get(), ECHOMQ_STOP_ABANDON, 1000);
  return out;
}

void burst_vs_hard(Context &ctx, echomq_client *c) {
  const double seconds = ctx.sz.runs >= 5 ? 3.0 : 1.0;
  for (bool burst : {false, true}) {
    const std::string how = burst ? "limit 2, burst 8" : "hard limit 2";
    std::vector<double> waits;
    ctx.measure("lifecycle", "busy lane jobs/s among 9 quiet lanes, " + how, 1, "jobs/s", [&](int) {
      BurstRun r = burst_run(ctx, c, burst, seconds);
      waits.insert(waits.end(), r.quiet_waits_ms.begin(), r.quiet_waits_ms.end());
      return r.busy_per_s;
    });
    ctx.measure("lifecycle", "quiet lanes p99 wait, " + how, 1, "ms", [&](int) {
      return percentile(waits, 0.99);  // over every quiet job of the runs above
    });
  }
}

}  // namespace

void run_lifecycle(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  claim_cost(ctx, c.get());
  burst_vs_hard(ctx, c.get());
}

}  // namespace bench
