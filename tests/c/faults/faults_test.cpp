// The fault suite: real processes killed and disturbed, on loopback only,
// each server of a test's own stopped by its own PID (PrivateServer). Every
// case ends with nothing lost: each job acked exactly once (the server's
// acked counter equals the jobs enqueued and no job is left), and
// echomq_verify clean. Bounded in jobs and time (docs/operations.md, "What
// survives what", describes the behaviour each case pins down).
#include "test_env.hpp"

#include "clock_shim.hpp"
#include "raw_valkey.hpp"
#include "replica_pair.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace emqtest;

namespace {

std::vector<uint64_t> enqueue_jobs(echomq_client *c, const std::string &q, int n, int lanes,
                                   uint32_t max_attempts = 0) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.max_attempts = max_attempts;
  std::vector<uint64_t> ids;
  for (int i = 0; i < n; ++i)
    ids.push_back(enqueue(c, q, "lane" + std::to_string(i % lanes), "job" + std::to_string(i), &o));
  return ids;
}

/// Claims and acks until `want` jobs were acked or `ms` passed; returns the
/// ids acked, with the attempt each was acked in.
std::map<uint64_t, uint64_t> drain(echomq_client *c, const std::string &q, size_t want, int64_t ms) {
  std::map<uint64_t, uint64_t> acked;
  const int64_t until = mono_ms() + ms;
  while (acked.size() < want && mono_ms() < until) {
    echomq_job *raw = nullptr;
    const int rc = echomq_claim(c, q.c_str(), 10000, &raw);
    JobPtr j(raw);
    if (rc == ECHOMQ_EMPTY) {
      sleep_ms(10);
      continue;
    }
    INFO("claim -> " << describe(c, rc));
    REQUIRE(rc == ECHOMQ_OK);
    const uint64_t id = echomq_job_id(j.get());
    INFO("job " << id << " delivered again after its ack");
    REQUIRE(acked.count(id) == 0);
    ack(c, q, j.get());
    acked[id] = echomq_job_attempt(j.get());
  }
  return acked;
}

/// Nothing left and every job counted once by the server.
void require_all_acked_once(echomq_client *c, const std::string &q, uint64_t jobs) {
  const echomq_queue_stats s = stats(c, q);
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  CHECK(s.delayed == 0);
  CHECK(s.dead == 0);
  CHECK(s.enqueued_total == jobs);
  CHECK(s.acked_total == jobs);
  require_verified(c, q);
}

bool is_unknown(int rc) { return rc == ECHOMQ_ECONN || rc == ECHOMQ_ETIMEOUT; }

}  // namespace

TEST_CASE("a worker killed with SIGKILL while holding leases loses nothing", "[faults]") {
  constexpr int kJobs = 40, kHeld = 10;
  constexpr int64_t kLease = 300;
  auto c = connect_client();
  const std::string q = fresh_queue("kill-worker");
  enqueue_jobs(c.get(), q, kJobs, 4);
  const std::string url = server_url();
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The worker: claims kHeld jobs, reports their ids, and hangs until killed.
    close(fds[0]);
    echomq_client *w = echomq_client_create(nullptr);
    if (!w || echomq_client_connect(w, url.c_str()) != ECHOMQ_OK) _exit(2);
    for (int i = 0; i < kHeld; ++i) {
      echomq_job *j = nullptr;
      if (echomq_claim(w, q.c_str(), kLease, &j) != ECHOMQ_OK) _exit(3);
      const uint64_t id = echomq_job_id(j);
      if (write(fds[1], &id, sizeof id) != sizeof id) _exit(4);
      echomq_job_free(j);
    }
    for (;;) pause();
  }
  close(fds[1]);
  std::set<uint64_t> held;
  while (held.size() < kHeld) {
    pollfd p{fds[0], POLLIN, 0};
    REQUIRE(poll(&p, 1, 10000) == 1);
    uint64_t id = 0;
    REQUIRE(read(fds[0], &id, sizeof id) == sizeof id);
    held.insert(id);
  }
  close(fds[0]);
  REQUIRE(kill(pid, SIGKILL) == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(stats(c.get(), q).leased == kHeld);

  const auto acked = drain(c.get(), q, kJobs, 10000);
  REQUIRE(acked.size() == kJobs);
  for (const auto &[id, attempt] : acked) {
    INFO("job " << id);
    // A job the killed worker held came back after its lease with its
    // attempt count raised (the token its holder had is stale now).
    CHECK(attempt == (held.count(id) ? 2u : 1u));
  }
  require_all_acked_once(c.get(), q, kJobs);
}

TEST_CASE("valkey-server killed under appendfsync always keeps every ack and every job",
          "[faults]") {
  constexpr int kJobs = 100, kAcked = 40, kHeld = 10;
  PrivateServer server(free_port(), "--appendonly yes --appendfsync always");
  server.start();
  std::set<uint64_t> acked, held;
  std::string q = fresh_queue("kill-server");
  {
    ClientPtr c = connect_client(nullptr, server.url());
    enqueue_jobs(c.get(), q, kJobs, 5);
    for (int i = 0; i < kAcked; ++i) {
      JobPtr j = claim(c.get(), q, 60000);
      REQUIRE(j);
      ack(c.get(), q, j.get());
      acked.insert(echomq_job_id(j.get()));
    }
    for (int i = 0; i < kHeld; ++i) {
      JobPtr j = claim(c.get(), q, 500);  // leased when the server dies
      REQUIRE(j);
      held.insert(echomq_job_id(j.get()));
    }
    server.stop();  // SIGKILL
  }
  server.start();  // the same directory: the AOF is replayed
  ClientPtr c(echomq_client_create(nullptr));
  int rc = ECHOMQ_ELOADING;
  for (int i = 0; i < 200 && rc == ECHOMQ_ELOADING; ++i, sleep_ms(20))
    rc = echomq_client_connect(c.get(), server.url().c_str());  // busy loading the AOF
  EMQ_REQUIRE_OK(c.get(), rc);
  const echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.acked_total == kAcked);
  CHECK(s.leased == kHeld);
  CHECK(s.pending == kJobs - kAcked - kHeld);
  const auto after = drain(c.get(), q, kJobs - kAcked, 10000);
  REQUIRE(after.size() == kJobs - kAcked);
  for (const auto &[id, attempt] : after) {
    INFO("job " << id);
    CHECK(acked.count(id) == 0);  // an acked job stays gone
    CHECK(attempt == (held.count(id) ? 2u : 1u));
  }
  require_all_acked_once(c.get(), q, kJobs);
}

TEST_CASE("CLIENT KILL every few ms under four workers: every job acked exactly once",
          "[faults]") {
  constexpr int kJobs = 300, kWorkers = 4;
  PrivateServer server(free_port());
  server.start();
  const std::string q = fresh_queue("client-kill");
  ClientPtr c = connect_client(nullptr, server.url());
  enqueue_jobs(c.get(), q, kJobs, 6, 100);

  std::mutex mu;
  std::map<uint64_t, int> surely_acked;  // acks answered OK
  std::vector<std::string> errors;
  std::atomic<bool> done{false};
  int kills = 0;
  std::atomic<int> unknown{0};
  auto worker = [&] {
    echomq_client *w = echomq_client_create(nullptr);
    int rc = ECHOMQ_ECONN;
    for (int i = 0; i < 200 && rc != ECHOMQ_OK; ++i, sleep_ms(5))
      rc = echomq_client_connect(w, server.url().c_str());
    while (!done) {
      echomq_job *j = nullptr;
      rc = echomq_claim(w, q.c_str(), 200, &j);
      if (rc == ECHOMQ_EMPTY || is_unknown(rc)) {
        if (is_unknown(rc)) ++unknown;  // a claim lost in flight: its lease runs out
        sleep_ms(2);
        continue;
      }
      if (rc != ECHOMQ_OK) {
        std::lock_guard<std::mutex> l(mu);
        errors.push_back(std::string("claim: ") + echomq_strerror(rc));
        break;
      }
      const uint64_t id = echomq_job_id(j), token = echomq_job_token(j);
      echomq_job_free(j);
      // An ack whose outcome is unknown is asked again: OK (it had not
      // landed), ENOTFOUND (it had, or the job was re-delivered and acked
      // by another worker), ESTALE (the lease ran out meanwhile).
      do rc = echomq_ack(w, q.c_str(), id, token);
      while (is_unknown(rc) && !done && (++unknown, true));
      std::lock_guard<std::mutex> l(mu);
      if (rc == ECHOMQ_OK) ++surely_acked[id];
      else if (rc != ECHOMQ_ENOTFOUND && rc != ECHOMQ_ESTALE)
        errors.push_back(std::string("ack: ") + echomq_strerror(rc));
    }
    echomq_client_free(w);
  };
  std::vector<std::thread> ts;
  for (int i = 0; i < kWorkers; ++i) ts.emplace_back(worker);
  // Every 3 ms: cut every other client's connection (this one watches).
  const int64_t until = mono_ms() + 40000;
  RawValkey raw("127.0.0.1", server.port());
  while (mono_ms() < until) {
    raw.command({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"});
    ++kills;
    ReplyPtr r = raw.must({"HGET", "emq:{" + q + "}:stats", "acked"});
    if (r->type == REDIS_REPLY_STRING && std::atoll(r->str) >= kJobs) break;
    sleep_ms(3);
  }
  done = true;
  for (auto &t : ts) t.join();
  INFO("kills " << kills << ", calls with an unknown outcome " << unknown);
  CHECK(errors.empty());
  for (const auto &[id, n] : surely_acked) {
    INFO("job " << id);
    CHECK(n == 1);
  }
  CHECK(kills > 10);
  ClientPtr after = connect_client(nullptr, server.url());
  require_all_acked_once(after.get(), q, kJobs);
}

TEST_CASE("fifty threads with 100 ms leases: exactly-once acks, active counts never negative",
          "[faults]") {
  constexpr int kJobs = 500, kThreads = 50;
  auto c = connect_client();
  const std::string q = fresh_queue("fifty");
  enqueue_jobs(c.get(), q, kJobs, 10, 100);  // attempts enough for the lease races
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "lane0", 3));
  std::mutex mu;
  std::map<uint64_t, int> ok_acks;
  std::vector<std::string> errors;
  std::atomic<bool> done{false};
  std::atomic<int> stale{0}, negative{0};
  const std::string url = server_url();
  auto worker = [&](unsigned seed) {
    echomq_client *w = echomq_client_create(nullptr);
    if (echomq_client_connect(w, url.c_str()) != ECHOMQ_OK) {
      std::lock_guard<std::mutex> l(mu);
      errors.push_back("connect");
      echomq_client_free(w);
      return;
    }
    while (!done) {
      echomq_job *j = nullptr;
      int rc = echomq_claim(w, q.c_str(), 100, &j);
      if (rc == ECHOMQ_EMPTY) {
        sleep_ms(5);
        continue;
      }
      if (rc != ECHOMQ_OK) {
        std::lock_guard<std::mutex> l(mu);
        errors.push_back(std::string("claim: ") + echomq_strerror(rc));
        break;
      }
      // Work 0..139 ms: some jobs outlive their 100 ms lease.
      seed = seed * 1103515245u + 12345u;
      sleep_ms((seed >> 16) % 140);
      rc = echomq_ack(w, q.c_str(), echomq_job_id(j), echomq_job_token(j));
      std::lock_guard<std::mutex> l(mu);
      if (rc == ECHOMQ_OK) ++ok_acks[echomq_job_id(j)];
      else if (rc == ECHOMQ_ESTALE || rc == ECHOMQ_ENOTFOUND) ++stale;
      else errors.push_back(std::string("ack: ") + echomq_strerror(rc));
      echomq_job_free(j);
    }
    echomq_client_free(w);
  };
  std::vector<std::thread> ts;
  for (int i = 0; i < kThreads; ++i) ts.emplace_back(worker, 7u + i);
  RawValkey raw;
  const int64_t until = mono_ms() + 60000;
  for (;;) {
    ReplyPtr act = raw.must({"HVALS", "emq:{" + q + "}:gactive"});
    for (size_t i = 0; i < act->elements; ++i)
      if (std::atoll(act->element[i]->str) < 0) ++negative;
    {
      std::lock_guard<std::mutex> l(mu);
      if (ok_acks.size() >= kJobs || !errors.empty() || mono_ms() > until) break;
    }
    sleep_ms(5);
  }
  done = true;
  for (auto &t : ts) t.join();
  INFO("acks refused as stale (lease ran out first): " << stale);
  CHECK(errors.empty());
  CHECK(negative == 0);
  CHECK(ok_acks.size() == kJobs);
  for (const auto &[id, n] : ok_acks) {
    INFO("job " << id);
    CHECK(n == 1);
  }
  require_all_acked_once(c.get(), q, kJobs);
}

TEST_CASE("the server's wall clock stepped an hour either way loses no job", "[faults]") {
  constexpr int kJobs = 30;
  PrivateServer server(free_port());
  const std::string shift = server.dir() + "/clock-shift";
  start_with_clock_shim(shift, [&] { server.start(); });
  ClientPtr c = connect_client(nullptr, server.url());
  const std::string q = fresh_queue("clock");
  enqueue_jobs(c.get(), q, kJobs, 3);
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 600000;  // ten minutes
  const uint64_t delayed = enqueue(c.get(), q, "late", "x", &later);

  // The shim works: the server's TIME moves with the file.
  const int64_t t0 = stats(c.get(), q).server_time_ms;
  shift_clock(shift, 3600000);
  const int64_t t1 = stats(c.get(), q).server_time_ms;
  CHECK(t1 - t0 >= 3600000);
  CHECK(t1 - t0 < 3660000);

  // +1 h: a lease taken before the step has expired for the server; the
  // next claim recovers the job (attempt 2) and its first holder is stale.
  shift_clock(shift, 0);
  JobPtr before = claim(c.get(), q, 60000);
  REQUIRE(before);
  shift_clock(shift, 3600000);
  // The delayed job fell due too (its due time is server ms).
  std::map<uint64_t, uint64_t> seen;
  JobPtr again;
  for (int i = 0; i < kJobs + 1 && !(again && seen.count(delayed)); ++i) {
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    if (echomq_job_id(j.get()) == echomq_job_id(before.get())) again = std::move(j);
    else {
      seen[echomq_job_id(j.get())] = echomq_job_token(j.get());
      ack(c.get(), q, j.get());
    }
  }
  REQUIRE(again);
  CHECK(echomq_job_attempt(again.get()) == 2);
  CHECK(echomq_ack(c.get(), q.c_str(), echomq_job_id(before.get()), echomq_job_token(before.get())) ==
        ECHOMQ_ESTALE);
  ack(c.get(), q, again.get());
  seen[echomq_job_id(again.get())] = 2;
  CHECK(seen.count(delayed) == 1);  // due an hour early: delivered now

  // -1 h (from +1 h: two hours back): a lease taken now runs two hours
  // longer for the server; its holder can still ack it, nothing is lost.
  shift_clock(shift, -3600000);
  JobPtr held = claim(c.get(), q, 1000);
  REQUIRE(held);
  shift_clock(shift, -3600000 - 60000);
  // (Back in time: its lease has not expired, so no claim takes it.)
  for (;;) {
    JobPtr j = claim(c.get(), q, 60000);
    if (!j) break;
    CHECK(echomq_job_id(j.get()) != echomq_job_id(held.get()));
    seen[echomq_job_id(j.get())] = echomq_job_token(j.get());
    ack(c.get(), q, j.get());
  }
  ack(c.get(), q, held.get());
  seen[echomq_job_id(held.get())] = 1;
  shift_clock(shift, 0);
  CHECK(seen.size() == kJobs + 1);
  require_all_acked_once(c.get(), q, kJobs + 1);
}

// A failover to a replica whose clock is an hour behind the old primary's:
// the assumption of the rising token (docs/architecture.md, "Fencing
// tokens") fails, and it fails safe. The delivery the failover lost had a
// token from the primary's clock; the replacement's comes from the job's
// last replicated token (+1 tick), lower than the lost one but still above
// every delivery the promoted server knows of, and the lost delivery's
// holder is refused.
TEST_CASE("a failover to a replica with its clock an hour behind refuses the lost holder",
          "[faults][failover]") {
  PrivateServer probe(free_port());
  const std::string shift = probe.dir() + "/clock-shift-pair";
  std::unique_ptr<ReplicaPair> made;
  start_with_clock_shim(shift, [&] { made = std::make_unique<ReplicaPair>(); });  // both read the file
  ReplicaPair &pair = *made;
  RawValkey &praw = pair.praw(), &rraw = pair.rraw();

  const std::string q = fresh_queue("clockfail");
  auto pc = connect_client(nullptr, pair.primary.url());
  const uint64_t id = enqueue(pc.get(), q, "g", "once");
  // A first delivery that the replica sees: failed straight back to its lane.
  JobPtr first = claim(pc.get(), q, 60000);
  REQUIRE(first);
  const uint64_t first_token = echomq_job_token(first.get());
  EMQ_REQUIRE_OK(pc.get(), echomq_fail(pc.get(), q.c_str(), id, first_token, "again", 0, nullptr));
  praw.must({"SET", "clock-failover-mark", "1"});
  REQUIRE(praw.integer({"WAIT", "1", "10000"}) == 1);

  sleep_ms(20);  // the lost delivery's clock tick is past the first's + 1
  pair.link.partition();
  JobPtr lost = claim(pc.get(), q, 60000);
  REQUIRE(lost);
  REQUIRE(echomq_job_id(lost.get()) == id);
  const uint64_t lost_token = echomq_job_token(lost.get());
  CHECK(lost_token > first_token);
  praw.must({"SET", "clock-failover-mark", "2"});
  CHECK(praw.integer({"WAIT", "1", "300"}) == 0);  // the claim never reached the replica

  pc.reset();
  pair.primary.stop();
  shift_clock(shift, -3600000);  // only the replica is left to read it
  rraw.must({"REPLICAOF", "NO", "ONE"});

  auto rc = connect_client(nullptr, pair.replica.url());
  JobPtr replacement = claim(rc.get(), q, 60000);
  REQUIRE(replacement);
  REQUIRE(echomq_job_id(replacement.get()) == id);
  const uint64_t new_token = echomq_job_token(replacement.get());
  // What the docs say: not ordered after the lost token (the clock fell an
  // hour behind it), ordered after every token the promoted server holds,
  // and never equal to the lost one: its holder is refused.
  CHECK(new_token < lost_token);
  CHECK(new_token > first_token);
  CHECK(new_token / ECHOMQ_TOKEN_SPREAD == first_token / ECHOMQ_TOKEN_SPREAD + 1);
  const Keyspace before = rraw.queue_snapshot(q);
  CHECK(echomq_ack(rc.get(), q.c_str(), id, lost_token) == ECHOMQ_ESTALE);
  CHECK(echomq_extend(rc.get(), q.c_str(), id, lost_token, 60000, nullptr) == ECHOMQ_ESTALE);
  CHECK(before == rraw.queue_snapshot(q));
  // From there on the tokens rise again, on the promoted server's clock.
  EMQ_REQUIRE_OK(rc.get(), echomq_fail(rc.get(), q.c_str(), id, new_token, "again", 0, nullptr));
  JobPtr next = claim(rc.get(), q, 60000);
  REQUIRE(next);
  CHECK(echomq_job_token(next.get()) > new_token);
  ack(rc.get(), q, next.get());
  require_verified(rc.get(), q);
  shift_clock(shift, 0);
}
