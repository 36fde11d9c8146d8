// overload.cpp — workload (e) of `echomq_bench compare`, sustained overload:
// a heavy tenant kept `backlog` jobs deep (it enqueues as fast as the
// workers drain), quiet tenants sending at a fixed total rate below
// capacity, handlers of a fixed time on one worker engine. Reported as JSON:
// the quiet jobs' waits (enqueue -> handler start) of those sent in the
// window after the warm-up, p50 / p99 / max; the heavy tenant's p50; jobs
// started per second in the window. The peers run the same steps
// (bench/compare/workloads.mjs workloadE, bench/peers).
#include "overload.hpp"

#include "common.hpp"
#include "results.hpp"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <mutex>
#include <thread>

namespace bench {
namespace {

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch()).count();
}

struct Start {
  int p;            // 0 = heavy, 1.. = quiet tenants
  int64_t enq, at;  // enqueue and handler start, steady µs
};

double pct(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * double(v.size())))];
}

bool enqueue_heavy(echomq_client *c, const std::string &q, uint64_t k, double handler_ms) {
  Batch b(echomq_batch_create());
  for (uint64_t i = 0; i < k && b;) {
    echomq_batch_clear(b.get());
    const std::string pl = "0 " + std::to_string(now_us()) + " " + json_num(handler_ms);
    for (uint64_t end = std::min(k, i + 1000); i < end; ++i) echomq_batch_add(b.get(), "heavy", pl.data(), pl.size());
    if (!ok(echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr), c, "overload: enqueue heavy")) return false;
  }
  return true;
}

}  // namespace

std::string workload_overload(const std::string &url, const std::string &queue, const OverloadOptions &o) {
  Client heavy(url), quiet(url);
  if (!heavy.get() || !quiet.get()) return "null";
  if (!enqueue_heavy(heavy.get(), queue, o.backlog, o.handler_ms)) return "null";
  echomq_worker_options wo = ECHOMQ_WORKER_OPTIONS_INIT;
  wo.slots = o.slots;
  if (o.target_wait_ms >= 0) wo.target_wait_ms = o.target_wait_ms;
  echomq_worker *w = nullptr;
  if (echomq_worker_new(&w, url.c_str(), queue.c_str(), &wo) != ECHOMQ_OK || echomq_worker_start(w) != ECHOMQ_OK) {
    errors().add("overload: worker engine did not start");
    echomq_worker_free(w);
    return "null";
  }
  std::mutex mu;
  std::vector<Start> starts;
  std::atomic<bool> quit{false};
  std::atomic<uint64_t> heavy_started{0};
  std::vector<std::thread> hosts;
  for (int t = 0; t < o.threads; ++t) {
    hosts.emplace_back([&] {
      while (!quit.load()) {
        echomq_job *raw = nullptr;
        if (echomq_worker_next(w, 50, &raw) != ECHOMQ_OK) continue;
        Job j(raw);
        const int64_t at = now_us();
        int p = 0;
        int64_t enq = 0;
        double ms = 0;
        std::sscanf(echomq_job_payload(j.get(), nullptr), "%d %" SCNd64 " %lf", &p, &enq, &ms);
        {
          std::lock_guard<std::mutex> lk(mu);
          starts.push_back(Start{p, enq, at});
        }
        if (p == 0) heavy_started.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(ms * 1000)));
        echomq_worker_done(w, j.get());
      }
    });
  }
  // The run starts with the first job (the engine's start-up left out).
  while (heavy_started.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const int64_t w_start = now_us() + static_cast<int64_t>(o.warmup_s * 1e6);
  const int64_t w_end = w_start + static_cast<int64_t>(o.window_s * 1e6);
  std::atomic<bool> stop_quiet{false};
  std::mutex sent_mu;
  std::vector<int64_t> sent;  // enqueue times of the quiet jobs sent in the window
  std::thread sender([&] {    // paced by the clock: a late send is caught up
    const int64_t t0 = now_us();
    for (uint64_t k = 0; !stop_quiet.load(); ++k) {
      const int64_t due = t0 + static_cast<int64_t>(double(k) * 1e6 / o.quiet_rate);
      const int64_t d = due - now_us();
      if (d > 0) std::this_thread::sleep_for(std::chrono::microseconds(d));
      const int64_t t = now_us();
      const std::string g = "q" + std::to_string(k % o.quiet);
      const std::string pl = std::to_string(1 + k % o.quiet) + " " + std::to_string(t) + " " + json_num(o.handler_ms);
      uint64_t id = 0;
      if (!ok(echomq_enqueue(quiet.get(), queue.c_str(), g.c_str(), pl.data(), pl.size(), nullptr, &id),
              quiet.get(), "overload: enqueue quiet"))
        return;
      if (t >= w_start && t < w_end) {
        std::lock_guard<std::mutex> lk(sent_mu);
        sent.push_back(t);
      }
    }
  });
  uint64_t enqueued = o.backlog;
  std::vector<double> depths;
  const int64_t deadline = w_end + static_cast<int64_t>(o.max_wait_s * 1e6);
  auto quiet_started = [&] {
    std::lock_guard<std::mutex> lk(mu);
    std::lock_guard<std::mutex> lk2(sent_mu);
    size_t n = 0;
    for (const Start &s : starts)
      if (s.p > 0 && std::binary_search(sent.begin(), sent.end(), s.enq)) ++n;
    return n >= sent.size();
  };
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const uint64_t pending = enqueued - heavy_started.load();
    const int64_t t = now_us();
    if (t >= w_start && t < w_end) depths.push_back(double(pending));
    if (pending < o.backlog) {  // the heavy tenant sends as fast as it is drained
      if (!enqueue_heavy(heavy.get(), queue, o.backlog - pending, o.handler_ms)) break;
      enqueued += o.backlog - pending;
    }
    if (t >= w_end) {
      if (!stop_quiet.exchange(true)) sender.join();
      if (t >= deadline || quiet_started()) break;
    }
  }
  if (!stop_quiet.exchange(true)) sender.join();
  quit.store(true);
  for (auto &h : hosts) h.join();
  echomq_worker_stop(w, ECHOMQ_STOP_ABANDON, 0);
  echomq_worker_free(w);
  const int64_t end = now_us();
  std::vector<double> qw, hw, censored;
  std::vector<int64_t> waited;
  size_t in_window = 0;
  for (const Start &s : starts) {
    if (s.p > 0 && std::binary_search(sent.begin(), sent.end(), s.enq)) {
      qw.push_back(double(s.at - s.enq) / 1000);
      waited.push_back(s.enq);
    }
    if (s.at >= w_start && s.at < w_end) {
      ++in_window;
      if (s.p == 0) hw.push_back(double(s.at - s.enq) / 1000);
    }
  }
  std::sort(waited.begin(), waited.end());
  for (int64_t t : sent)
    if (!std::binary_search(waited.begin(), waited.end(), t)) censored.push_back(double(end - t) / 1000);
  const double bound = censored.empty() ? INFINITY : *std::min_element(censored.begin(), censored.end());
  qw.insert(qw.end(), censored.begin(), censored.end());
  double mean = 0;
  for (double d : depths) mean += d / double(depths.size());
  const double p50 = pct(qw, 0.5), p99 = pct(qw, 0.99);
  return "{\"workers\": " + std::to_string(o.threads) + ", \"slots\": " + std::to_string(o.slots) +
         ", \"target_wait_ms\": " + std::to_string(o.target_wait_ms < 0 ? wo.target_wait_ms : o.target_wait_ms) +
         ", \"backlog\": " + std::to_string(o.backlog) + ", \"quiet\": " + std::to_string(o.quiet) +
         ", \"quiet_rate\": " + json_num(o.quiet_rate) + ", \"handler_ms\": " + json_num(o.handler_ms) +
         ", \"quiet_p50_ms\": " + json_num(p50) + ", \"quiet_p99_ms\": " + json_num(p99) +
         ", \"quiet_max_ms\": " + json_num(pct(qw, 1)) + ", \"quiet_jobs\": " + std::to_string(sent.size()) +
         ", \"quiet_unstarted\": " + std::to_string(censored.size()) +
         ", \"p50_lower_bound\": " + (p50 >= bound ? "true" : "false") +
         ", \"p99_lower_bound\": " + (p99 >= bound ? "true" : "false") +
         ", \"heavy_p50_ms\": " + json_num(pct(hw, 0.5)) +
         ", \"jobs_per_s\": " + json_num(double(in_window) / o.window_s) + ", \"backlog_mean\": " + json_num(mean) + "}";
}

}  // namespace bench
