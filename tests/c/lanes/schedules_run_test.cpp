// Schedules under load (docs/operations.md, "Periodic jobs"): many engines
// and plain claimers racing for the same ticks make one job per tick; ten
// processes upserting one schedule at once leave one schedule; an idle
// worker engine's wait on the server wakes for the next tick.
#include "raw_valkey.hpp"
#include "schedule_helpers.hpp"
#include "test_env.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace emqtest;

namespace {

// The schedule events (fired, skipped) on the queue's stream, each as its fields.
std::vector<std::map<std::string, std::string>> schedule_events(echomq_client *c, const std::string &q) {
  std::vector<std::map<std::string, std::string>> out;
  std::string after = "0";
  for (;;) {
    echomq_event_list *raw = nullptr;
    EMQ_REQUIRE_OK(c, echomq_events_read(c, q.c_str(), after.c_str(), 1000, 0, &raw));
    EventListPtr l(raw);
    size_t n = echomq_event_list_count(l.get());
    if (n == 0) return out;
    for (size_t i = 0; i < n; ++i) {
      std::map<std::string, std::string> f;
      for (size_t k = 0; k < echomq_event_list_nfields(l.get(), i); ++k)
        f[echomq_event_list_name(l.get(), i, k)] = echomq_event_list_value(l.get(), i, k, nullptr);
      if (f["type"] == "fired" || f["type"] == "skipped") out.push_back(f);
      after = echomq_event_list_id(l.get(), i);
    }
  }
}

int64_t percentile(std::vector<int64_t> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

TEST_CASE("every 50 ms over 200 ticks with 8 worker engines and 4 plain claimers: each tick fires once",
          "[schedules][run]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-run");
  EMQ_REQUIRE_OK(c.get(), echomq_set_events(c.get(), q.c_str(), 100000, 0));
  std::mutex mu;
  std::map<uint64_t, int> handled;  // job id -> times handed out
  auto note = [&](uint64_t id) {
    std::lock_guard<std::mutex> lock(mu);
    ++handled[id];
  };
  std::atomic<bool> quit{false};
  std::vector<WorkerPtr> engines;
  std::vector<std::thread> hosts;
  for (int e = 0; e < 8; ++e) {
    echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
    o.slots = 4;
    o.idle_wait_ms = 30000;  // far past a tick: only the tick's wake-up serves it in time
    engines.push_back(start_worker(q, o));
    echomq_worker *w = engines.back().get();
    hosts.emplace_back([&, w] {
      while (!quit) {
        echomq_job *j = nullptr;
        int rc = echomq_worker_next(w, 50, &j);
        if (rc != ECHOMQ_OK) continue;
        note(echomq_job_id(j));
        echomq_worker_done(w, j);
        echomq_job_free(j);
      }
    });
  }
  // Connected here: the helper asserts with Catch, which is not thread-safe.
  std::vector<ClientPtr> claimers;
  for (int k = 0; k < 4; ++k) claimers.push_back(connect_client());
  for (int k = 0; k < 4; ++k) {
    echomq_client *own = claimers[k].get();
    hosts.emplace_back([&, own] {
      while (!quit) {
        echomq_job *j = nullptr;
        int rc = echomq_bclaim(own, q.c_str(), 30000, 200, &j);
        if (rc != ECHOMQ_OK) continue;
        note(echomq_job_id(j));
        echomq_ack(own, q.c_str(), echomq_job_id(j), echomq_job_token(j));
        echomq_job_free(j);
      }
    });
  }
  echomq_schedule_options o = every_options(50, "ticks");
  int64_t first = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "fifty", &o, nullptr, &first));
  const int64_t end = first + 199 * 50;
  sleep_until_server(c.get(), q, end + 100);
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_pause(c.get(), q.c_str(), "fifty"));
  sleep_ms(300);  // the last jobs run
  quit = true;
  for (auto &w : engines) echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000);
  for (auto &t : hosts) t.join();

  auto info = get_schedule(c.get(), q, "fifty");
  auto events = schedule_events(c.get(), q);
  std::set<int64_t> firedTicks;
  std::set<uint64_t> firedIds;
  std::vector<int64_t> late;
  uint64_t skipped = 0;
  for (auto &e : events) {
    if (e["type"] == "fired") {
      int64_t tick = std::stoll(e["tick"]);
      INFO("tick " << tick);
      CHECK(firedTicks.insert(tick).second);  // never twice
      CHECK((tick - first) % 50 == 0);
      firedIds.insert(std::stoull(e["id"]));
      late.push_back(std::stoll(e["late"]));
    } else {
      CHECK(e["reason"] == "missed");
      skipped += std::stoull(e["count"]);
    }
  }
  const uint64_t ticks = static_cast<uint64_t>((info.last_tick_ms - first) / 50 + 1);
  CHECK(info.last_tick_ms >= end);
  CHECK(info.runs == firedTicks.size());
  CHECK(info.runs + info.skips == ticks);  // every tick fired or skipped, once
  CHECK(info.skips == skipped);
  // Each tick's job handed out exactly once, and only those.
  CHECK(handled.size() == firedIds.size());
  for (auto &[id, n] : handled) {
    INFO("job " << id);
    CHECK(n == 1);
    CHECK(firedIds.count(id) == 1);
  }
  WARN("ticks " << ticks << ", fired " << info.runs << ", skipped " << info.skips << "; lateness p50 "
                << percentile(late, 0.5) << " ms, p99 " << percentile(late, 0.99) << " ms");
  require_verified(c.get(), q);
}

TEST_CASE("ten processes upserting the same schedule at once leave one schedule", "[schedules][run]") {
  const std::string q = fresh_queue("sched-boot");
  int go[2];
  REQUIRE(pipe(go) == 0);
  std::vector<pid_t> kids;
  for (int i = 0; i < 10; ++i) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // A process at boot: connect, wait for the start, upsert.
      echomq_client *c = nullptr;
      if (echomq_client_new(&c, nullptr) != ECHOMQ_OK || echomq_client_connect(c, server_url().c_str()) != ECHOMQ_OK)
        _exit(100);
      char b;
      if (read(go[0], &b, 1) != 1) _exit(101);
      echomq_schedule_options o = cron_options("*/5 * * * *", "Europe/Paris", "reports");
      int changed = -1;
      int rc = echomq_schedule_upsert(c, q.c_str(), "nightly", &o, &changed, nullptr);
      echomq_client_free(c);
      _exit(rc == ECHOMQ_OK ? changed : 102);
    }
    kids.push_back(pid);
  }
  close(go[0]);
  sleep_ms(300);  // every child connected
  const std::string start(10, 'g');
  REQUIRE(write(go[1], start.data(), start.size()) == 10);
  close(go[1]);
  std::map<int, int> outcomes;
  for (pid_t pid : kids) {
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    REQUIRE(WIFEXITED(st));
    ++outcomes[WEXITSTATUS(st)];
  }
  CHECK(outcomes[ECHOMQ_SCHEDULE_CREATED] == 1);
  CHECK(outcomes[ECHOMQ_SCHEDULE_UNCHANGED] == 9);
  auto c = connect_client();
  CHECK(schedule_names(c.get(), q, 100) == std::vector<std::string>{"nightly"});
  auto info = get_schedule(c.get(), q, "nightly");
  CHECK(info.next_at_ms % (5 * 60000) == 0);
  require_verified(c.get(), q);
}

TEST_CASE("an idle worker engine's wait on the server wakes for the next tick", "[schedules][run]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-wake");
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.idle_wait_ms = 60000;
  WorkerPtr w = start_worker(q, o);
  sleep_ms(200);  // the engine found nothing and sleeps on the server
  echomq_schedule_options s = every_options(250, "L");
  int64_t first = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "wake", &s, nullptr, &first));
  // The upsert wakes one sleeper, which learns the first tick; from then on
  // every claim's next due time is the next tick, and the engine claims
  // again at that time by its own clock: a wait on the server would end only
  // at the server's timer resolution (100 ms at hz 10), about 50 ms late on
  // the median.
  std::vector<int64_t> late;
  const int64_t until = mono_ms() + 15000;
  while (late.size() < 16 && mono_ms() < until) {
    echomq_job *j = nullptr;
    if (echomq_worker_next(w.get(), 500, &j) != ECHOMQ_OK) continue;
    JobPtr looked = get_job(c.get(), q, echomq_job_id(j));
    int64_t tick = echomq_job_tick_ms(looked.get());
    auto info = get_schedule(c.get(), q, "wake");
    if (info.fired_job == echomq_job_id(j)) late.push_back(info.fired_at_ms - tick);
    echomq_worker_done(w.get(), j);
    echomq_job_free(j);
  }
  REQUIRE(late.size() == 16);
  INFO("lateness of ticks 1..16 (ms): " << [&] { std::string s; for (auto l : late) s += std::to_string(l) + " "; return s; }());
  CHECK(percentile(late, 1.0) < 100);
  CHECK(percentile(late, 0.5) <= 20);
  echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000);
}
