// Latency-bounded prefetch: the engine holds about target_wait_ms of
// handler work unstarted, so a quiet lane's job is claimed behind a few
// heavy ones instead of a full buffer; fast handlers still get deep batches.
#include "test_env.hpp"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

using namespace emqtest;

namespace {

struct QuietRun {
  int heavyAhead;  // heavy jobs started after the quiet job was enqueued, before it started
  int64_t waitMs;  // the quiet job's wait, enqueue to start
};

// A heavy lane 600 deep, 4 host threads whose handler takes 20 ms, 128
// slots; once the engine has run a while, one quiet job is enqueued.
QuietRun quiet_behind_heavy(int target_wait_ms) {
  auto c = connect_client();
  const std::string q = fresh_queue("prefetch-quiet");
  constexpr int kHeavy = 600;
  constexpr int kHosts = 4;
  BatchPtr b(echomq_batch_create());
  for (int i = 0; i < kHeavy; ++i) REQUIRE(echomq_batch_add(b.get(), "heavy", "h", 1) == ECHOMQ_OK);
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), b.get(), nullptr));
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 128;
  o.target_wait_ms = target_wait_ms;
  WorkerPtr w = start_worker(q, o);
  // Counted by the hosts, checked here (Catch2 assertions stay on this thread).
  std::atomic<int> heavyStarted{0}, heavyAtEnqueue{-1}, heavyAtQuiet{-1};
  std::atomic<int64_t> quietAt{0};
  std::atomic<bool> quit{false};
  std::vector<std::thread> hosts;
  for (int t = 0; t < kHosts; ++t) {
    hosts.emplace_back([&] {
      while (!quit.load()) {
        echomq_job *j = nullptr;
        if (echomq_worker_next(w.get(), 100, &j) != ECHOMQ_OK) continue;
        size_t n = 0;  // not payload_of: its Catch2 assertion would run on this thread
        const char *p = echomq_job_payload(j, &n);
        if (std::string(p, n) == "quiet") {
          quietAt.store(mono_ms());
          heavyAtQuiet.store(heavyStarted.load());
        } else {
          heavyStarted.fetch_add(1);
          sleep_ms(20);
        }
        echomq_worker_done(w.get(), j);
        echomq_job_free(j);
      }
    });
  }
  // Warm-up: the engine has measured the handlers and settled its claims.
  const int64_t deadline = mono_ms() + 20000;
  while (heavyStarted.load() < 40 && mono_ms() < deadline) sleep_ms(5);
  heavyAtEnqueue.store(heavyStarted.load());
  const int64_t t0 = mono_ms();
  enqueue(c.get(), q, "quiet", "quiet");
  while (heavyAtQuiet.load() < 0 && mono_ms() < deadline) sleep_ms(2);
  quit.store(true);
  for (auto &t : hosts) t.join();
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  REQUIRE(heavyAtQuiet.load() >= 0);  // the quiet job ran
  require_verified(c.get(), q);
  return QuietRun{heavyAtQuiet.load() - heavyAtEnqueue.load(), quietAt.load() - t0};
}

}  // namespace

TEST_CASE("a quiet lane's job waits about one target behind a deep heavy backlog, not a full buffer",
          "[worker][prefetch]") {
  // 4 handlers of 20 ms start a job every 5 ms: a 5 ms target holds about
  // one job unstarted, where a fixed prefetch fills 124 of the 128 slots
  // (over 600 ms of work ahead of any new job).
  const QuietRun bounded = quiet_behind_heavy(5);
  INFO("latency-bounded: " << bounded.heavyAhead << " heavy jobs ahead, waited " << bounded.waitMs << " ms");
  CHECK(bounded.heavyAhead <= 12);
  CHECK(bounded.waitMs < 300);  // generous: about 25 ms expected
  // The same run with a fixed prefetch: the buffer the bound avoids.
  const QuietRun fixed = quiet_behind_heavy(0);
  INFO("fixed: " << fixed.heavyAhead << " heavy jobs ahead, waited " << fixed.waitMs << " ms");
  CHECK(fixed.heavyAhead >= 50);
}

TEST_CASE("with fast handlers latency-bounded prefetch still claims deep batches", "[worker][prefetch]") {
  auto c = connect_client();
  const std::string q = fresh_queue("prefetch-fast");
  constexpr int kJobs = 3000;
  enqueue_spread(c.get(), q, kJobs, 30);
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  REQUIRE(o.target_wait_ms == 5);  // the default is latency-bounded
  o.slots = 64;
  WorkerPtr w = start_worker(q, o);
  std::atomic<int> done{0};
  std::vector<std::thread> hosts;
  for (int t = 0; t < 8; ++t) {
    hosts.emplace_back([&] {
      while (done.load() < kJobs) {
        echomq_job *j = nullptr;
        if (echomq_worker_next(w.get(), 100, &j) != ECHOMQ_OK) continue;
        if (echomq_worker_done(w.get(), j) == ECHOMQ_OK) done.fetch_add(1);
        echomq_job_free(j);
      }
    });
  }
  for (auto &t : hosts) t.join();
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  const echomq_worker_stats s = worker_stats(w.get());
  REQUIRE(s.claimed == static_cast<uint64_t>(kJobs));
  // No-op handlers: the bound is past the slots, so each claim fills a third
  // of them or more (a bound that held a few jobs would claim one or two).
  INFO(s.claimed << " jobs in " << s.round_trips << " round trips");
  CHECK(s.claimed >= 10 * s.round_trips);
  require_verified(c.get(), q);
}

TEST_CASE("target_wait_ms is checked, and callers of older versions keep a fixed prefetch", "[worker][prefetch]") {
  echomq_worker *w = nullptr;
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.target_wait_ms = -1;
  CHECK(echomq_worker_new(&w, server_url().c_str(), "q", &o) == ECHOMQ_EINVAL);
  o.target_wait_ms = ECHOMQ_TARGET_WAIT_MAX_MS + 1;
  CHECK(echomq_worker_new(&w, server_url().c_str(), "q", &o) == ECHOMQ_EINVAL);
  CHECK(w == nullptr);
  o.target_wait_ms = ECHOMQ_TARGET_WAIT_MAX_MS;
  REQUIRE(echomq_worker_new(&w, server_url().c_str(), "q", &o) == ECHOMQ_OK);
  echomq_worker_free(w);
  // A version-2 struct ends before target_wait_ms: init writes nothing there,
  // and new reads nothing there (a bad value past its end is not seen).
  echomq_worker_options v2;
  std::memset(&v2, 0x7f, sizeof v2);
  REQUIRE(echomq_worker_options_init(&v2, ECHOMQ_WORKER_OPTIONS_VERSION_2) == ECHOMQ_OK);
  CHECK(v2.version == ECHOMQ_WORKER_OPTIONS_VERSION_2);
  CHECK(v2.slots == 8);
  CHECK(v2.wait_timeout_ms == 1000);
  CHECK(v2.target_wait_ms == 0x7f7f7f7f);
  w = nullptr;
  CHECK(echomq_worker_new(&w, server_url().c_str(), "q", &v2) == ECHOMQ_OK);
  echomq_worker_free(w);
}
