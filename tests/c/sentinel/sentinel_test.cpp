// Failover decided by a real Sentinel. A primary with two replicas and one
// valkey-sentinel (quorum 1) watching them; the URL names a Sentinel that is
// down first, then the live one. Producers, the worker engine, a blocking
// claim and a plain holder all connect through the Sentinel URL with
// wait_replicas=1. The primary is SIGKILLed by its PID; the Sentinel
// promotes a replica and points the other at it. Everyone follows by
// themselves, and:
//  - every enqueue confirmed OK (WAIT 1 answered) is delivered after the
//    failover: nothing acknowledged is lost;
//  - every job of the surviving history is acked exactly once (acked ==
//    enqueued on the new primary, nothing left anywhere), and each job that
//    ran twice ran under another token the second time (redelivered, not
//    acked twice);
//  - a holder whose lease ran out during the failover is refused (ESTALE).
// What asynchronous replication alone (no wait_replicas) can lose is what
// the old primary had not yet sent to the replica when it died: an enqueue
// answered OK (the job is gone), an ack (the job runs again), a claim (it
// is delivered again under a new token). WAIT narrows this to the writes of
// the calls in flight at the crash, which are answered UNCONFIRMED or with an
// error, never OK (docs/operations.md, "Sentinel").
#include "raw_valkey.hpp"
#include "sentinel_proc.hpp"
#include "test_env.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 1500;
constexpr unsigned kSlots = 8;

echomq_client_options waiting() {
  echomq_client_options o = ECHOMQ_CLIENT_OPTIONS_INIT;
  o.connect_timeout_ms = 1000;
  o.command_timeout_ms = 2000;
  o.wait_replicas = 1;
  o.wait_timeout_ms = 1500;  // a loaded machine's replica can take more than 500 ms to ack
  return o;
}

ClientPtr sentinel_client(const std::string &url) {
  const echomq_client_options o = waiting();
  return connect_client(&o, url);
}

// Retries a call through the failover window: ECONN and ETIMEOUT are what a
// lost primary and a Sentinel that has not promoted yet look like.
template <class F>
int retrying(echomq_client *c, int64_t ms, F &&call) {
  const int64_t until = mono_ms() + ms;
  int rc = call();
  while ((rc == ECHOMQ_ECONN || rc == ECHOMQ_ETIMEOUT) && mono_ms() < until) {
    sleep_ms(100);
    rc = call();
  }
  INFO("last status " << describe(c, rc));
  return rc;
}

struct Delivery {
  uint64_t id;
  uint64_t token;
};

}  // namespace

TEST_CASE("a Sentinel failover is followed by the engine and producers and a blocking claim",
          "[sentinel]") {
  PrivateServer primary(free_port()), r1(free_port()), r2(free_port());
  start_primary_and_replicas(primary, r1, r2);
  SentinelProc sentinel("emq", primary.port());
  sentinel.wait_for_replicas(2, 20000);
  const int dead_sentinel = free_port();  // asked first, answers nothing
  const std::string url = "valkey+sentinel://127.0.0.1:" + std::to_string(dead_sentinel) +
                          ",127.0.0.1:" + std::to_string(sentinel.port()) + "/emq";
  INFO("URL " << url);

  const std::string q = fresh_queue("sentinel");
  const std::string qhold = fresh_queue("sentinel-hold");
  const std::string qwait = fresh_queue("sentinel-wait");
  auto admin = sentinel_client(url);

  // A holder whose lease runs out while the primary is gone.
  const uint64_t held_id = enqueue(admin.get(), qhold, "g", "held");
  echomq_job *raw_held = nullptr;
  EMQ_REQUIRE_OK(admin.get(), echomq_claim(admin.get(), qhold.c_str(), kLease, &raw_held));
  JobPtr held(raw_held);
  const uint64_t held_token = echomq_job_token(held.get());

  // The engine and its host thread: every delivery by payload.
  echomq_worker_options wo = ECHOMQ_WORKER_OPTIONS_INIT;
  wo.slots = kSlots;
  wo.lease_ms = 2000;
  wo.idle_wait_ms = 300;
  wo.connect_timeout_ms = 1000;
  wo.command_timeout_ms = 2000;
  wo.wait_replicas = 1;
  wo.wait_timeout_ms = 1500;
  echomq_worker *raw_worker = nullptr;
  REQUIRE(echomq_worker_new(&raw_worker, url.c_str(), q.c_str(), &wo) == ECHOMQ_OK);
  WorkerPtr worker(raw_worker);
  REQUIRE(echomq_worker_start(worker.get()) == ECHOMQ_OK);
  std::mutex mu;
  std::map<std::string, std::vector<Delivery>> deliveries;
  std::atomic<bool> quit{false};
  std::thread host([&] {
    while (!quit) {
      echomq_job *j = nullptr;
      if (echomq_worker_next(worker.get(), 100, &j) != ECHOMQ_OK) continue;
      JobPtr job(j);
      size_t len = 0;
      const char *data = echomq_job_payload(job.get(), &len);  // no Catch macro off the main thread
      {
        std::lock_guard<std::mutex> lk(mu);
        deliveries[std::string(data ? data : "", len)].push_back({echomq_job_id(job.get()), echomq_job_token(job.get())});
      }
      echomq_worker_done(worker.get(), job.get());
    }
  });

  // The producer: what each enqueue answered, by payload.
  std::set<std::string> confirmed;
  std::atomic<int> made{0}, after_failover{0};
  std::atomic<bool> failed_over{false}, produced{false};
  // Clients are made here: Catch's assertions are not for other threads.
  auto producer_client = sentinel_client(url);
  auto waiter_client = sentinel_client(url);
  std::thread producer([&] {
    echomq_client *c = producer_client.get();
    for (int i = 0; !quit && !produced; ++i) {
      const std::string payload = "p" + std::to_string(i);
      uint64_t id = 0;
      const int rc = echomq_enqueue(c, q.c_str(), ("g" + std::to_string(i % 4)).c_str(),
                                    payload.data(), payload.size(), nullptr, &id);
      if (rc == ECHOMQ_OK) {
        std::lock_guard<std::mutex> lk(mu);
        confirmed.insert(payload);
      }
      if (rc == ECHOMQ_OK || rc == ECHOMQ_UNCONFIRMED) {
        ++made;
        if (failed_over) ++after_failover;
      }
      sleep_ms(rc == ECHOMQ_OK || rc == ECHOMQ_UNCONFIRMED ? 5 : 100);
    }
  });

  // A blocking claim that waits through the failover.
  std::atomic<bool> got_wait_job{false};
  std::thread waiter([&] {
    echomq_client *c = waiter_client.get();
    while (!quit && !got_wait_job) {
      echomq_job *j = nullptr;
      const int rc = echomq_bclaim(c, qwait.c_str(), 60000, 500, &j);
      if (rc == ECHOMQ_OK) {
        JobPtr job(j);
        got_wait_job = echomq_ack(c, qwait.c_str(), echomq_job_id(job.get()),
                                  echomq_job_token(job.get())) == ECHOMQ_OK;
      } else if (rc != ECHOMQ_EMPTY) {
        sleep_ms(100);
      }
    }
  });
  struct Joiner {
    std::atomic<bool> &quit;
    std::vector<std::thread *> threads;
    ~Joiner() {
      quit = true;
      for (auto *t : threads)
        if (t->joinable()) t->join();
    }
  } joiner{quit, {&producer, &waiter, &host}};

  auto handled = [&] {
    std::lock_guard<std::mutex> lk(mu);
    return deliveries.size();
  };
  for (int64_t until = mono_ms() + 10000; handled() < 30 && mono_ms() < until;) sleep_ms(20);
  REQUIRE(handled() >= 30);

  // The crash: SIGKILL by PID. The Sentinel promotes a replica.
  const int old_port = primary.port();
  primary.stop();
  int new_port = 0;
  for (int64_t until = mono_ms() + 20000; mono_ms() < until; sleep_ms(100)) {
    new_port = sentinel.primary_port();
    if (new_port != 0 && new_port != old_port) break;
  }
  INFO("Sentinel names port " << new_port << " (old primary " << old_port << ", replicas "
                              << r1.port() << " and " << r2.port() << ")");
  REQUIRE((new_port == r1.port() || new_port == r2.port()));
  failed_over = true;

  // The blocking claim finds work enqueued on the new primary.
  uint64_t wait_id = 0;
  REQUIRE(retrying(admin.get(), 15000, [&] {
            return echomq_enqueue(admin.get(), qwait.c_str(), "g", "w", 1, nullptr, &wait_id);
          }) >= 0);
  for (int64_t until = mono_ms() + 15000; !got_wait_job && mono_ms() < until;) sleep_ms(50);
  CHECK(got_wait_job);

  // The producer and the engine keep going on the new primary.
  for (int64_t until = mono_ms() + 15000; after_failover < 30 && mono_ms() < until;) sleep_ms(50);
  REQUIRE(after_failover >= 30);

  // The stale holder: its lease ran out during the failover; a new claim
  // takes the job under a greater token and the old holder is refused.
  echomq_job *raw_again = nullptr;
  int rc = ECHOMQ_EMPTY;
  for (int64_t until = mono_ms() + 10000; mono_ms() < until; sleep_ms(100)) {
    rc = echomq_claim(admin.get(), qhold.c_str(), 60000, &raw_again);
    if (rc != ECHOMQ_EMPTY && rc != ECHOMQ_ECONN && rc != ECHOMQ_ETIMEOUT) break;
  }
  INFO("claim of the held job again -> " << describe(admin.get(), rc));
  REQUIRE(rc >= 0);
  REQUIRE(rc != ECHOMQ_EMPTY);
  JobPtr again(raw_again);
  CHECK(echomq_job_id(again.get()) == held_id);
  CHECK(echomq_job_token(again.get()) != held_token);  // a token never repeats for a job
  EMQ_REQUIRE_STATUS(admin.get(), ECHOMQ_ESTALE, echomq_ack(admin.get(), qhold.c_str(), held_id, held_token));
  EMQ_REQUIRE_STATUS(admin.get(), ECHOMQ_ESTALE,
                     echomq_extend(admin.get(), qhold.c_str(), held_id, held_token, kLease, nullptr));
  rc = echomq_ack(admin.get(), qhold.c_str(), held_id, echomq_job_token(again.get()));
  CHECK(rc >= 0);  // OK, or UNCONFIRMED while the other replica catches up

  // Stop producing, drain, stop the engine.
  produced = true;
  producer.join();
  echomq_queue_stats s{};
  for (int64_t until = mono_ms() + 15000; mono_ms() < until; sleep_ms(100)) {
    s.version = ECHOMQ_QUEUE_STATS_VERSION;
    if (echomq_stats(admin.get(), q.c_str(), &s) == ECHOMQ_OK && s.pending == 0 && s.leased == 0 &&
        s.delayed == 0)
      break;
  }
  {
    char why[512];
    const int code = echomq_worker_last_error(worker.get(), why, sizeof why);
    echomq_worker_stats ws{};
    ws.version = ECHOMQ_WORKER_STATS_VERSION;
    echomq_worker_stats_get(worker.get(), &ws);
    INFO("engine: claimed " << ws.claimed << ", done " << ws.done << ", lost " << ws.lost << ", errors "
                            << ws.errors << ", last error " << code << ": " << why);
    CHECK(s.pending == 0);
  }
  CHECK(echomq_worker_stop(worker.get(), ECHOMQ_STOP_DRAIN, 10000) == ECHOMQ_OK);
  quit = true;
  host.join();
  waiter.join();
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  EMQ_REQUIRE_OK(admin.get(), echomq_stats(admin.get(), q.c_str(), &s));
  INFO("enqueued " << s.enqueued_total << ", acked " << s.acked_total << ", pending " << s.pending
                   << ", leased " << s.leased << ", delayed " << s.delayed << ", dead " << s.dead);
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  CHECK(s.delayed == 0);
  CHECK(s.dead == 0);
  CHECK(s.acked_total == s.enqueued_total);  // every job of this history acked once
  require_verified(admin.get(), q);

  // Nothing confirmed is lost; a second run is a redelivery under another token.
  size_t twice = 0;
  std::lock_guard<std::mutex> lk(mu);
  for (const std::string &p : confirmed) {
    INFO("confirmed enqueue " << p << " was never delivered");
    CHECK(deliveries.count(p) == 1);
  }
  for (const auto &d : deliveries) {
    if (d.second.size() < 2) continue;
    ++twice;
    for (size_t i = 1; i < d.second.size(); ++i) {
      INFO(d.first << " delivered again under token " << d.second[i].token << " after "
                   << d.second[i - 1].token);
      if (d.second[i].id == d.second[i - 1].id) CHECK(d.second[i].token != d.second[i - 1].token);
    }
  }
  // Only what the engine held or had in flight at the crash can run twice:
  // its slots, and the claims of the one round trip in flight.
  INFO(twice << " of " << deliveries.size() << " jobs ran twice; made " << made.load());
  CHECK(twice <= 2 * kSlots);
  CHECK(confirmed.size() >= 30);
}

TEST_CASE("Sentinel credentials travel apart from the primary's and an unknown name or no Sentinel is ECONN",
          "[sentinel]") {
  PrivateServer primary(free_port(), "--requirepass dpw");
  primary.start();
  SentinelProc sentinel("emq", primary.port(), "requirepass spw\nsentinel auth-pass emq dpw\n");
  echomq_client *raw = nullptr;
  REQUIRE(echomq_client_new(&raw, nullptr) == ECHOMQ_OK);
  ClientPtr c(raw);
  const std::string live = "127.0.0.1:" + std::to_string(sentinel.port());
  const std::string dead = "127.0.0.1:" + std::to_string(free_port());
  auto refused = [&](const std::string &url, const std::string &why) {
    const int rc = echomq_client_connect(c.get(), url.c_str());
    INFO(url << " -> " << describe(c.get(), rc));
    CHECK(rc == ECHOMQ_ECONN);
    CHECK(std::string(echomq_client_errmsg(c.get())).find(why) != std::string::npos);
  };
  // No Sentinel password: the Sentinel refuses to answer.
  refused("valkey+sentinel://:dpw@" + live + "/emq", "NOAUTH");
  refused("valkey+sentinel://:dpw@" + live + "/other?sentinel_password=spw",
          "monitors no primary named 'other'");
  refused("redis+sentinel://:dpw@" + dead + "/emq?sentinel_password=spw", dead);
  // The primary itself is no Sentinel.
  refused("valkey+sentinel://:dpw@127.0.0.1:" + std::to_string(primary.port()) +
              "/emq?sentinel_password=spw",
          "primary 'emq'");

  // The Sentinel's password goes to the Sentinel, the userinfo's to the
  // primary, and the Sentinels are asked in order.
  EMQ_REQUIRE_OK(c.get(), echomq_client_connect(c.get(), ("valkey+sentinel://:dpw@" + dead + "," + live +
                                                          "/emq/2?sentinel_password=spw").c_str()));
  const std::string q = fresh_queue("sentinel-plain");
  enqueue(c.get(), q, "g", "x");
  auto direct = connect_client(nullptr, "valkey://:dpw@127.0.0.1:" + std::to_string(primary.port()) + "/2");
  CHECK(stats(direct.get(), q).pending == 1);
}
