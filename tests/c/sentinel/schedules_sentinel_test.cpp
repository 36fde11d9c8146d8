// What a failover can do to a schedule (docs/operations.md, "Periodic jobs",
// "Failover"), on a real Sentinel: a primary, two replicas, one Sentinel.
// A tick's fire (its job and the schedule moved on) is one script, so it
// replicates whole or not at all. Here the replicas' links run through
// proxies that go silent just before a tick, so the old primary fires it
// alone, a worker engine takes and runs its job, and the primary dies
// (SIGKILL) with the fire unsent. The promoted replica never saw it:
//  - with the missed-tick policy "fire once", its next claim fires the tick
//    again (it is still the latest due tick): the tick ran twice, both jobs
//    carrying the same schedule, tick and idempotency key, and no tick runs
//    a third time;
//  - with "skip" and a grace shorter than the failover, the promoted server
//    finds the tick too late and skips it: it ran once;
//  - in the surviving history each tick fired at most once, and the
//    schedules go on at their next ticks.
#include "raw_valkey.hpp"
#include "schedule_helpers.hpp"
#include "sentinel_proc.hpp"
#include "tcp_proxy.hpp"
#include "test_env.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

using namespace emqtest;

namespace {

constexpr int64_t kEvery = 10000;

// The replication offset replica `port` has processed.
long long replica_offset(int port) {
  RawValkey raw("127.0.0.1", port);
  ReplyPtr r = raw.must({"INFO", "replication"});
  std::string info(r->str, r->len);
  auto at = info.find("slave_repl_offset:");
  return at == std::string::npos ? -1 : std::stoll(info.substr(at + 18));
}

}  // namespace

TEST_CASE("a tick fired on a primary that dies before replicating fires again at most once", "[sentinel][schedules]") {
  PrivateServer primary(free_port()), r1(free_port()), r2(free_port());
  start_primary_and_replicas(primary, r1, r2);
  RawValkey praw("127.0.0.1", primary.port());
  SentinelProc sentinel("emqs", primary.port());
  sentinel.wait_for_replicas(2, 20000);
  const std::string url = "valkey+sentinel://127.0.0.1:" + std::to_string(sentinel.port()) + "/emqs";

  echomq_client_options co = ECHOMQ_CLIENT_OPTIONS_INIT;
  co.connect_timeout_ms = 1000;
  co.command_timeout_ms = 2000;
  auto admin = connect_client(&co, url);
  const std::string q = fresh_queue("sched-sentinel");
  EMQ_REQUIRE_OK(admin.get(), echomq_set_events(admin.get(), q.c_str(), 10000, 0));
  const int64_t start = server_now(admin.get(), q) + 2500;
  echomq_schedule_options once = every_options(kEvery, "once");
  once.start_at_ms = start;
  echomq_schedule_options skip = every_options(kEvery, "skip");
  skip.start_at_ms = start;
  skip.missed = ECHOMQ_MISSED_SKIP;
  skip.grace_ms = 500;
  EMQ_REQUIRE_OK(admin.get(), echomq_schedule_upsert(admin.get(), q.c_str(), "once", &once, nullptr, nullptr));
  EMQ_REQUIRE_OK(admin.get(), echomq_schedule_upsert(admin.get(), q.c_str(), "skip", &skip, nullptr, nullptr));
  REQUIRE(praw.integer({"WAIT", "2", "5000"}) == 2);  // both replicas have the schedules

  // One engine through the Sentinel; its host notes each run: the lane and
  // the tick (the grid tick at or before the job's enqueue time).
  echomq_worker_options wo = ECHOMQ_WORKER_OPTIONS_INIT;
  wo.slots = 2;
  wo.idle_wait_ms = 500;
  wo.connect_timeout_ms = 1000;
  wo.command_timeout_ms = 2000;
  echomq_worker *raw_worker = nullptr;
  REQUIRE(echomq_worker_new(&raw_worker, url.c_str(), q.c_str(), &wo) == ECHOMQ_OK);
  WorkerPtr worker(raw_worker);
  REQUIRE(echomq_worker_start(worker.get()) == ECHOMQ_OK);
  std::mutex mu;
  std::map<std::string, std::map<int64_t, int>> runs;  // lane -> tick -> runs
  std::atomic<bool> quit{false};
  std::thread host([&] {
    while (!quit) {
      echomq_job *j = nullptr;
      if (echomq_worker_next(worker.get(), 100, &j) != ECHOMQ_OK) continue;
      JobPtr job(j);
      const int64_t at = echomq_job_enqueued_at_ms(job.get());
      const int64_t tick = start + (at - start) / kEvery * kEvery;
      {
        std::lock_guard<std::mutex> lk(mu);
        ++runs[echomq_job_group(job.get())][tick];
      }
      echomq_worker_done(worker.get(), job.get());
    }
  });
  struct Joiner {
    std::atomic<bool> &quit;
    std::thread &t;
    ~Joiner() {
      quit = true;
      if (t.joinable()) t.join();
    }
  } joiner{quit, host};
  auto ran = [&](const std::string &lane, int64_t tick) {
    std::lock_guard<std::mutex> lk(mu);
    return runs[lane][tick];
  };

  // The replicas follow the primary through proxies (the Sentinel would
  // point them back at it only after its failover timeout, 5 s), which go
  // silent just before the first tick: the primary fires it alone.
  TcpProxy p1(primary.port()), p2(primary.port());
  RawValkey("127.0.0.1", r1.port()).must({"REPLICAOF", "127.0.0.1", std::to_string(p1.port())});
  RawValkey("127.0.0.1", r2.port()).must({"REPLICAOF", "127.0.0.1", std::to_string(p2.port())});
  praw.must({"SET", "sentinel-sched-mark", "2"});
  REQUIRE(praw.integer({"WAIT", "2", "5000"}) == 2);
  sleep_until_server(admin.get(), q, start - 400);
  p1.partition();
  p2.partition();
  const long long before = replica_offset(r1.port());
  for (int64_t until = mono_ms() + 3000; (ran("once", start) == 0 || ran("skip", start) == 0) && mono_ms() < until;)
    sleep_ms(10);
  CHECK(ran("once", start) == 1);
  CHECK(ran("skip", start) == 1);
  // The primary dies with the fires the replicas never got.
  const int old_port = primary.port();
  primary.stop();
  CHECK(replica_offset(r1.port()) == before);
  int new_port = 0;
  for (int64_t until = mono_ms() + 20000; mono_ms() < until; sleep_ms(100)) {
    new_port = sentinel.primary_port();
    if (new_port != 0 && new_port != old_port) break;
  }
  REQUIRE((new_port == r1.port() || new_port == r2.port()));
  const int64_t promoted = mono_ms();
  // One failover is the case: on a loaded machine a second one (the promoted
  // server slow to answer within 1 s) would lose the next fires the same way.
  sentinel.set("down-after-milliseconds", "30000");

  // The promoted server fires "once" again for the same tick (still its
  // latest due), and skips "skip" (past its grace); then the next tick of each.
  for (int64_t until = mono_ms() + 20000; ran("once", start) < 2 && mono_ms() < until;) sleep_ms(20);
  INFO("the tick ran again " << mono_ms() - promoted << " ms after the promotion");
  CHECK(ran("once", start) == 2);
  const int64_t second = start + kEvery;
  for (int64_t until = mono_ms() + 25000; (ran("once", second) == 0 || ran("skip", second) == 0) && mono_ms() < until;)
    sleep_ms(20);
  CHECK(ran("once", second) == 1);
  CHECK(ran("skip", second) == 1);
  auto ca = connect_client(&co, url);
  EMQ_REQUIRE_OK(ca.get(), echomq_schedule_pause(ca.get(), q.c_str(), "once"));
  EMQ_REQUIRE_OK(ca.get(), echomq_schedule_pause(ca.get(), q.c_str(), "skip"));
  sleep_ms(300);
  quit = true;
  host.join();
  echomq_worker_stop(worker.get(), ECHOMQ_STOP_DRAIN, 5000);

  {
    std::lock_guard<std::mutex> lk(mu);
    for (auto &[lane, ticks] : runs)
      for (auto &[tick, n] : ticks) {
        INFO(lane << " tick " << tick);
        CHECK(n <= (lane == "once" && tick == start ? 2 : 1));  // at most one duplicate, only the lost fire's
      }
    CHECK(runs["skip"][start] == 1);  // skipped on the promoted server: ran once
  }
  // The surviving history: each tick fired at most once.
  REQUIRE(sentinel.primary_port() == new_port);  // still the server promoted once
  auto o = get_schedule(ca.get(), q, "once");
  auto s = get_schedule(ca.get(), q, "skip");
  CHECK(o.runs == 2);   // the first tick (again) and the second
  CHECK(s.runs == 1);   // the second only
  CHECK(s.skips == 1);  // the first, late
  // Both runs of the first tick carry its key: an enqueue with it is a
  // duplicate of the promoted server's job.
  echomq_enqueue_options e = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  const std::string key = "sched:once:" + std::to_string(start);
  e.idempotency_key = key.c_str();
  uint64_t id = 0;
  EMQ_REQUIRE_STATUS(ca.get(), ECHOMQ_DUPLICATE, echomq_enqueue(ca.get(), q.c_str(), "once", "x", 1, &e, &id));
  require_verified(ca.get(), q);
}
