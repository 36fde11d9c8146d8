// The worker engine: host threads pull and report; the engine claims and
// settles in batches, extends leases, sleeps on the server when idle, and
// gives unstarted jobs back when it stops.
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

using namespace emqtest;

TEST_CASE("eight host threads on one engine run every job exactly once, in batches", "[worker]") {
  auto c = connect_client();
  const std::string q = fresh_queue("engine");
  constexpr int kJobs = 2000;
  enqueue_spread(c.get(), q, kJobs, 20);
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 32;
  WorkerPtr w = start_worker(q, o);
  std::mutex mu;
  std::multiset<uint64_t> seen;
  std::atomic<int> done{0};
  std::vector<std::thread> hosts;
  for (int t = 0; t < 8; ++t) {
    hosts.emplace_back([&] {
      while (done.load() < kJobs) {
        echomq_job *j = nullptr;
        int rc = echomq_worker_next(w.get(), 100, &j);
        if (rc != ECHOMQ_OK) continue;
        {
          std::lock_guard<std::mutex> lk(mu);
          seen.insert(echomq_job_id(j));
        }
        if (echomq_worker_done(w.get(), j) == ECHOMQ_OK) done.fetch_add(1);
        echomq_job_free(j);
      }
    });
  }
  for (auto &t : hosts) t.join();
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  echomq_worker_stats s = worker_stats(w.get());
  CHECK(seen.size() == static_cast<size_t>(kJobs));
  CHECK(std::set<uint64_t>(seen.begin(), seen.end()).size() == static_cast<size_t>(kJobs));
  CHECK(s.done == static_cast<uint64_t>(kJobs));
  CHECK(s.claimed == static_cast<uint64_t>(kJobs));
  CHECK(s.round_trips < static_cast<uint64_t>(kJobs) / 4);  // batches, not one call per job
  echomq_queue_stats qs = stats(c.get(), q);
  CHECK(qs.acked_total == static_cast<uint64_t>(kJobs));
  CHECK(qs.leased == 0);
  CHECK(qs.pending == 0);
  require_verified(c.get(), q);
}

TEST_CASE("with two calls in flight the engine never holds more jobs than its slots", "[worker]") {
  // A prefetch of 32 or more lets the second pump claim while the first
  // pump's call is in flight; the slots both may fill are reserved first.
  auto c = connect_client();
  const std::string q = fresh_queue("overlap");
  constexpr int kJobs = 3000;
  constexpr unsigned kSlots = 48;
  enqueue_spread(c.get(), q, kJobs, 30);
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = kSlots;
  WorkerPtr w = start_worker(q, o);
  // No Catch2 assertion runs off the test's thread (they are not
  // thread-safe): the threads count what they saw, checked at the end.
  std::atomic<int> done{0}, twice{0}, statsFailed{0};
  std::atomic<uint64_t> most{0};
  std::mutex mu;
  std::set<uint64_t> seen;
  std::thread sampler([&] {
    while (done.load() < kJobs) {
      echomq_worker_stats s{};
      s.version = ECHOMQ_WORKER_STATS_VERSION;
      if (echomq_worker_stats_get(w.get(), &s) != ECHOMQ_OK) statsFailed.fetch_add(1);
      uint64_t held = s.running + s.buffered;
      if (held > most.load()) most.store(held);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  std::vector<std::thread> hosts;
  for (int t = 0; t < 8; ++t) {
    hosts.emplace_back([&] {
      while (done.load() < kJobs) {
        echomq_job *j = nullptr;
        if (echomq_worker_next(w.get(), 100, &j) != ECHOMQ_OK) continue;
        bool fresh;
        {
          std::lock_guard<std::mutex> lk(mu);
          fresh = seen.insert(echomq_job_id(j)).second;
        }
        if (!fresh) twice.fetch_add(1);
        // Running a while keeps the slots full, so a claim past them shows.
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (echomq_worker_done(w.get(), j) == ECHOMQ_OK) done.fetch_add(1);
        echomq_job_free(j);
      }
    });
  }
  for (auto &t : hosts) t.join();
  sampler.join();
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  echomq_worker_stats s = worker_stats(w.get());
  CHECK(twice.load() == 0);
  CHECK(statsFailed.load() == 0);
  CHECK(most.load() > 0);
  CHECK(most.load() <= kSlots);
  CHECK(s.done == static_cast<uint64_t>(kJobs));
  CHECK(s.claimed == static_cast<uint64_t>(kJobs));
  CHECK(s.lost == 0);
  echomq_queue_stats qs = stats(c.get(), q);
  CHECK(qs.acked_total == static_cast<uint64_t>(kJobs));
  CHECK(qs.leased == 0);
  require_verified(c.get(), q);
}

TEST_CASE("an idle engine sleeps on the server and wakes at once for new work", "[worker]") {
  auto c = connect_client();
  const std::string q = fresh_queue("engine-idle");
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.idle_wait_ms = 10000;
  WorkerPtr w = start_worker(q, o);
  echomq_job *j = nullptr;
  REQUIRE(echomq_worker_next(w.get(), 300, &j) == ECHOMQ_EMPTY);
  const int64_t t0 = mono_ms();
  // Catch2's assertions are not thread-safe (TSan saw the race): the thread
  // only calls the C API, and the main thread checks its status.
  int late_rc = ECHOMQ_EINTERNAL;
  std::thread late([&] {
    sleep_ms(200);
    late_rc = echomq_enqueue(c.get(), q.c_str(), "a", "late", 4, nullptr, nullptr);
  });
  REQUIRE(echomq_worker_next(w.get(), 5000, &j) == ECHOMQ_OK);
  const int64_t waited = mono_ms() - t0;
  late.join();
  REQUIRE(late_rc == ECHOMQ_OK);
  CHECK(waited < 1500);  // woken by the enqueue, not by the 10 s idle wait
  CHECK(payload_of(j) == "late");
  REQUIRE(echomq_worker_done(w.get(), j) == ECHOMQ_OK);
  REQUIRE(echomq_worker_done(w.get(), j) == ECHOMQ_ENOTFOUND);  // reported once only
  echomq_job_free(j);
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  CHECK(stats(c.get(), q).acked_total == 1);
  require_verified(c.get(), q);
}

TEST_CASE("a job failed with no delay comes straight back, though the engine went idle meanwhile", "[worker]") {
  // With slots to spare the engine claims again while the job runs, finds
  // nothing and sleeps on the server. The fail puts the job back and wakes
  // that sleep; the pump, busy sending the fail, must still read the
  // wake-up (it once armed the sleep again and left the job for the next
  // 10 s wait to run out). Many rounds: the race is a matter of timing.
  auto c = connect_client();
  const std::string q = fresh_queue("engine-refail");
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 4;
  o.idle_wait_ms = 10000;
  WorkerPtr w = start_worker(q, o);
  for (int round = 0; round < 20; ++round) {
    INFO("round " << round);
    enqueue(c.get(), q, "r" + std::to_string(round), "again");
    echomq_job *j = nullptr;
    REQUIRE(echomq_worker_next(w.get(), 3000, &j) == ECHOMQ_OK);
    const uint64_t id = echomq_job_id(j);
    sleep_ms(20);  // the engine's empty claim lands, and it sleeps on the server
    REQUIRE(echomq_worker_fail(w.get(), j, "once", 0) == ECHOMQ_OK);
    echomq_job_free(j);
    const int64_t t0 = mono_ms();
    REQUIRE(echomq_worker_next(w.get(), 3000, &j) == ECHOMQ_OK);
    CHECK(mono_ms() - t0 < 1500);
    CHECK(echomq_job_id(j) == id);
    CHECK(echomq_job_attempt(j) == 2);
    REQUIRE(echomq_worker_done(w.get(), j) == ECHOMQ_OK);
    echomq_job_free(j);
  }
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  CHECK(stats(c.get(), q).acked_total == 20);
  require_verified(c.get(), q);
}

TEST_CASE("fail retries with backoff by default, discard dead-letters at once", "[worker]") {
  auto c = connect_client();
  const std::string q = fresh_queue("engine-fail");
  enqueue(c.get(), q, "a", "retry me");
  enqueue(c.get(), q, "b", "hopeless");
  WorkerPtr w = start_worker(q, ECHOMQ_WORKER_OPTIONS_INIT);
  for (int i = 0; i < 2; ++i) {
    echomq_job *j = nullptr;
    REQUIRE(echomq_worker_next(w.get(), 3000, &j) == ECHOMQ_OK);
    if (payload_of(j) == "retry me") {
      REQUIRE(echomq_worker_fail(w.get(), j, "flaky", ECHOMQ_RETRY_DEFAULT) == ECHOMQ_OK);
    } else {
      REQUIRE(echomq_worker_discard(w.get(), j, "bad input") == ECHOMQ_OK);
    }
    echomq_job_free(j);
  }
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.delayed == 1);  // backoff: 1 s after the first attempt
  CHECK(s.dead == 1);     // with two attempts left
  echomq_worker_stats ws = worker_stats(w.get());
  CHECK(ws.failed == 2);
  CHECK(ws.delayed == 1);  // what the fails became, from the settle outcomes
  CHECK(ws.dead == 1);
  CHECK(ws.retried == 0);
  require_verified(c.get(), q);
}

TEST_CASE("stopping gives prefetched jobs back at once, and a drain settles running ones", "[worker]") {
  auto c = connect_client();
  const std::string q = fresh_queue("engine-stop");
  for (int i = 0; i < 10; ++i) enqueue(c.get(), q, "L" + std::to_string(i % 2), std::to_string(i));
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 8;
  o.target_wait_ms = 0;  // a fixed prefetch: every free slot is filled
  WorkerPtr w = start_worker(q, o);
  echomq_job *j = nullptr;
  REQUIRE(echomq_worker_next(w.get(), 3000, &j) == ECHOMQ_OK);
  sleep_ms(200);  // the engine fills its slots
  CHECK(stats(c.get(), q).leased == 8);
  // Catch2's assertions are not thread-safe (TSan saw the race): the
  // thread only calls the C API, and the main thread checks its status.
  int done_rc = ECHOMQ_EINTERNAL;
  std::thread finisher([&] {
    sleep_ms(300);
    done_rc = echomq_worker_done(w.get(), j);
  });
  const int64_t t0 = mono_ms();
  const int stop_rc = echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000);
  finisher.join();
  REQUIRE(stop_rc == ECHOMQ_OK);
  CHECK(done_rc == ECHOMQ_OK);
  CHECK(mono_ms() - t0 < 3000);
  echomq_job_free(j);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.leased == 0);    // the 7 unstarted ones went back at once, not after 30 s
  CHECK(s.pending == 9);
  CHECK(s.acked_total == 1);
  CHECK(worker_stats(w.get()).released == 7);
  REQUIRE(echomq_worker_next(w.get(), 0, &j) == ECHOMQ_ECANCELED);
  require_verified(c.get(), q);
}

TEST_CASE("the engine extends the leases of running jobs", "[worker]") {
  auto c = connect_client();
  const std::string q = fresh_queue("engine-extend");
  enqueue(c.get(), q, "a", "slow");
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.lease_ms = 400;
  WorkerPtr w = start_worker(q, o);
  echomq_job *j = nullptr;
  REQUIRE(echomq_worker_next(w.get(), 3000, &j) == ECHOMQ_OK);
  sleep_ms(1500);  // several lease lengths
  CHECK(claim(c.get(), q, 1000) == nullptr);  // still held: nobody else gets it
  REQUIRE(echomq_worker_done(w.get(), j) == ECHOMQ_OK);
  echomq_job_free(j);
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  echomq_worker_stats s = worker_stats(w.get());
  CHECK(s.extended >= 2);
  CHECK(s.done == 1);
  CHECK(s.lost == 0);
  CHECK(stats(c.get(), q).acked_total == 1);
  require_verified(c.get(), q);
}

TEST_CASE("bad worker options and URLs are refused before any I/O", "[worker]") {
  echomq_worker *w = nullptr;
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 0;
  CHECK(echomq_worker_new(&w, server_url().c_str(), "q", &o) == ECHOMQ_EINVAL);
  CHECK(w == nullptr);
  o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.prefetch = 9;
  CHECK(echomq_worker_new(&w, server_url().c_str(), "q", &o) == ECHOMQ_EINVAL);
  CHECK(echomq_worker_new(&w, "http://nowhere", "q", nullptr) == ECHOMQ_EINVAL);
  CHECK(echomq_worker_new(&w, server_url().c_str(), "bad:name", nullptr) == ECHOMQ_EINVAL);
  echomq_worker *never = echomq_worker_create(server_url().c_str(), "q", nullptr);
  CHECK(never != nullptr);
  echomq_worker_free(never);  // never started: no thread, no connection
}

TEST_CASE("connections killed under a running engine lose no job and ack none twice", "[worker]") {
  // A server of its own: killing every client of the shared one would
  // disturb the tests running beside this one.
  PrivateServer server(free_port());
  server.start();
  const std::string q = fresh_queue("engine-kill");
  constexpr int kJobs = 3000;
  enqueue_spread(connect_client(nullptr, server.url()).get(), q, kJobs, 10);
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  // 16: one call in flight at a time; 48: two (the second pump's calls are
  // cut too, and their slots must come back).
  o.slots = GENERATE(16u, 48u);
  o.lease_ms = 1000;  // jobs of a call whose reply was lost come back soon
  o.idle_wait_ms = 200;
  WorkerPtr w = start_worker(q, o, server.url());
  std::atomic<bool> stop{false};
  std::atomic<int> handed{0};
  std::vector<std::thread> hosts;
  for (int t = 0; t < 4; ++t) {
    hosts.emplace_back([&] {
      while (!stop.load()) {
        echomq_job *j = nullptr;
        if (echomq_worker_next(w.get(), 50, &j) != ECHOMQ_OK) continue;
        handed.fetch_add(1);
        sleep_ms(j && echomq_job_id(j) % 97 == 0 ? 5 : 0);
        echomq_worker_done(w.get(), j);  // may be refused if its lease was lost: it comes back
        echomq_job_free(j);
      }
    });
  }
  {
    RawValkey raw("127.0.0.1", server.port());
    for (int k = 0; k < 10; ++k) {
      sleep_ms(40);
      raw.must({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"});
    }
  }
  auto c = connect_client(nullptr, server.url());
  const int64_t deadline = mono_ms() + 30000;
  while (mono_ms() < deadline && stats(c.get(), q).acked_total < static_cast<uint64_t>(kJobs)) sleep_ms(50);
  stop = true;
  for (auto &t : hosts) t.join();
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.acked_total == static_cast<uint64_t>(kJobs));  // each job acked once, none lost
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  CHECK(handed.load() >= kJobs);  // at-least-once: a job may run again after a lost lease
  echomq_worker_stats ws = worker_stats(w.get());
  CHECK(ws.errors > 0);  // the kills were seen, reported and retried
  char msg[256];
  CHECK(echomq_worker_last_error(w.get(), msg, sizeof msg) != ECHOMQ_OK);
  require_verified(c.get(), q);
}

TEST_CASE("a drain and an abandon may stop the engine from two threads at once", "[worker]") {
  auto c = connect_client();
  const std::string q = fresh_queue("engine-two-stops");
  enqueue(c.get(), q, "a", "held");
  WorkerPtr w = start_worker(q, ECHOMQ_WORKER_OPTIONS_INIT);
  echomq_job *j = nullptr;
  REQUIRE(echomq_worker_next(w.get(), 3000, &j) == ECHOMQ_OK);
  int drained = 0;
  std::thread drainer([&] { drained = echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 10000); });
  sleep_ms(200);  // the drain waits for the running job
  const int64_t t0 = mono_ms();
  CHECK(echomq_worker_stop(w.get(), ECHOMQ_STOP_ABANDON, 0) == ECHOMQ_OK);
  drainer.join();
  CHECK(mono_ms() - t0 < 3000);  // the abandon ended the drain's wait
  CHECK(drained == ECHOMQ_ETIMEOUT);  // the job was left running
  CHECK(echomq_worker_done(w.get(), j) == ECHOMQ_ECANCELED);
  echomq_job_free(j);
  CHECK(stats(c.get(), q).leased == 1);  // it comes back by its lease
}
