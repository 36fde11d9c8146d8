// Leases and settling: expiry, stale holders, extend, fail with delay,
// dead-lettering and redrive, and recovery by a plain claim/ack loop.
#include "test_env.hpp"

#include "raw_valkey.hpp"

#include <map>
#include <random>
#include <set>

using namespace emqtest;

namespace {

constexpr int64_t kLongLease = 60000;
constexpr int64_t kShortLease = 100;

echomq_enqueue_options attempts(uint32_t n) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.max_attempts = n;
  return o;
}

JobListPtr dead_jobs(echomq_client *c, const std::string &q) {
  echomq_job_list *raw = nullptr;
  EMQ_REQUIRE_OK(c, echomq_dead(c, q.c_str(), 0, 100, &raw));
  REQUIRE(raw != nullptr);
  return JobListPtr(raw);
}

/// Asserts `rc` is ECHOMQ_ESTALE with a message.
void require_stale(echomq_client *c, int rc, const char *what) {
  INFO(what << " -> " << describe(c, rc));
  REQUIRE(rc == ECHOMQ_ESTALE);
  REQUIRE(std::string(echomq_client_errmsg(c)) != "");
}

}  // namespace

TEST_CASE("an expired lease comes back at its mint position with a higher token", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("expire");
  const uint64_t first = enqueue(c.get(), q, "g", "first");
  const uint64_t second = enqueue(c.get(), q, "g", "second");

  JobPtr old_holder = claim(c.get(), q, kShortLease);
  REQUIRE(old_holder);
  REQUIRE(echomq_job_id(old_holder.get()) == first);
  REQUIRE(echomq_job_attempt(old_holder.get()) == 1);
  const uint64_t old_token = echomq_job_token(old_holder.get());
  sleep_ms(3 * kShortLease);

  JobPtr new_holder = claim(c.get(), q, kLongLease);
  REQUIRE(new_holder);
  CHECK(echomq_job_id(new_holder.get()) == first);  // ahead of "second"
  CHECK(payload_of(new_holder.get()) == "first");
  CHECK(echomq_job_attempt(new_holder.get()) == 2);
  CHECK(echomq_job_token(new_holder.get()) > old_token);  // a new delivery, a higher token
  CHECK(stats(c.get(), q).failed_total == 1);  // an expired lease counts as a failure
  require_verified(c.get(), q);

  // The old holder is refused everything, and nothing changes.
  RawValkey raw;
  const Keyspace before = raw.queue_snapshot(q);
  require_stale(c.get(), echomq_ack(c.get(), q.c_str(), first, old_token), "stale ack");
  int64_t until = -1;
  require_stale(c.get(), echomq_extend(c.get(), q.c_str(), first, old_token, kLongLease, &until),
                "stale extend");
  int outcome = 0;
  require_stale(c.get(), echomq_fail(c.get(), q.c_str(), first, old_token, "late", 0, &outcome),
                "stale fail");
  // The attempt number is no token (the token of attempt 2 is not 2).
  require_stale(c.get(), echomq_ack(c.get(), q.c_str(), first, 2), "attempt as token");
  require_stale(c.get(), echomq_ack(c.get(), q.c_str(), first, echomq_job_token(new_holder.get()) + 1),
                "a token no delivery has");
  const Keyspace after = raw.queue_snapshot(q);
  INFO("keys changed by refused calls:\n" << keyspace_diff(before, after));
  CHECK(before == after);
  echomq_lane_info info = lane(c.get(), q, "g");
  CHECK(info.active == 1);
  CHECK(info.depth == 1);

  ack(c.get(), q, new_holder.get());
  JobPtr next = claim(c.get(), q, kLongLease);
  REQUIRE(next);
  CHECK(echomq_job_id(next.get()) == second);
  CHECK(echomq_job_attempt(next.get()) == 1);
  ack(c.get(), q, next.get());
  require_verified(c.get(), q);
}

TEST_CASE("extend keeps a job past its old deadline", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("extend");
  enqueue(c.get(), q, "g", "kept");
  const int64_t t0 = mono_ms();
  JobPtr job = claim(c.get(), q, 150);
  REQUIRE(job);
  const int64_t old_deadline = echomq_job_lease_until_ms(job.get());
  CHECK(old_deadline > 0);
  sleep_ms(50);
  int64_t until = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), echomq_job_id(job.get()),
                                        echomq_job_token(job.get()), 2000, &until));
  CHECK(until >= old_deadline + 1000);
  sleep_ms(t0 + 450 - mono_ms());  // well past the old deadline
  CHECK_FALSE(claim(c.get(), q, kLongLease));
  CHECK(lane(c.get(), q, "g").active == 1);
  CHECK(stats(c.get(), q).failed_total == 0);
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

TEST_CASE("fail with a delay brings the job back after the delay, not before", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("faildelay");
  const uint64_t id = enqueue(c.get(), q, "g", "retry me");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  int outcome = 0;
  const int64_t delay = 500;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(job.get()), "boom", delay, &outcome));
  const int64_t failed_at = mono_ms();
  CHECK(outcome == ECHOMQ_FAIL_DELAYED);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.delayed == 1);
  CHECK(s.leased == 0);
  CHECK(s.pending == 0);
  CHECK(s.failed_total == 1);
  require_verified(c.get(), q);

  CHECK_FALSE(claim(c.get(), q, kLongLease));
  sleep_ms(200);
  {
    JobPtr early = claim(c.get(), q, kLongLease);
    if (mono_ms() - failed_at < delay - 50) CHECK_FALSE(early);
  }
  sleep_ms(failed_at + delay + 200 - mono_ms());
  JobPtr again = claim(c.get(), q, kLongLease);
  REQUIRE(again);
  CHECK(echomq_job_id(again.get()) == id);
  CHECK(echomq_job_attempt(again.get()) == 2);
  CHECK(std::string(echomq_job_last_error(again.get())) == "boom");
  ack(c.get(), q, again.get());
  require_verified(c.get(), q);
}

TEST_CASE("fail without a delay puts the job back at its mint position", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("failnow");
  const uint64_t first = enqueue(c.get(), q, "g", "first");
  enqueue(c.get(), q, "g", "second");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), first, echomq_job_token(job.get()), nullptr, 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_RETRY);
  JobPtr again = claim(c.get(), q, kLongLease);
  REQUIRE(again);
  CHECK(echomq_job_id(again.get()) == first);
  CHECK(echomq_job_attempt(again.get()) == 2);
  ack(c.get(), q, again.get());
  JobPtr next = claim(c.get(), q, kLongLease);
  REQUIRE(next);
  CHECK(payload_of(next.get()) == "second");
  ack(c.get(), q, next.get());
  require_verified(c.get(), q);
}

TEST_CASE("exponential backoff delays the retry", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("backoff");
  const uint64_t id = enqueue(c.get(), q, "g", "x");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(job.get()), "again", ECHOMQ_RETRY_BACKOFF,
                                      &outcome));
  CHECK(outcome == ECHOMQ_FAIL_DELAYED);
  CHECK(stats(c.get(), q).delayed == 1);
  CHECK_FALSE(claim(c.get(), q, kLongLease));  // the first backoff step is 1 s
  require_verified(c.get(), q);
}

TEST_CASE("a job out of attempts is dead-lettered and can be redriven", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("dead");
  const echomq_enqueue_options two = attempts(2);
  const uint64_t doomed = enqueue(c.get(), q, "g", "doomed", &two);
  enqueue(c.get(), q, "g", "bystander");

  int outcome = 0;
  JobPtr a = claim(c.get(), q, kLongLease);
  REQUIRE(a);
  REQUIRE(echomq_job_id(a.get()) == doomed);
  CHECK(echomq_job_max_attempts(a.get()) == 2);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), doomed, echomq_job_token(a.get()), "first error", 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_RETRY);
  JobPtr b = claim(c.get(), q, kLongLease);
  REQUIRE(b);
  REQUIRE(echomq_job_id(b.get()) == doomed);
  REQUIRE(echomq_job_attempt(b.get()) == 2);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), doomed, echomq_job_token(b.get()), "second error", 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_DEAD);

  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.dead == 1);
  CHECK(s.dead_total == 1);
  CHECK(s.pending == 1);
  CHECK(lane(c.get(), q, "g").depth == 1);
  require_verified(c.get(), q);

  {
    JobListPtr dead = dead_jobs(c.get(), q);
    REQUIRE(echomq_job_list_count(dead.get()) == 1);
    const echomq_job *d = echomq_job_list_at(dead.get(), 0);
    CHECK(echomq_job_id(d) == doomed);
    CHECK(std::string(echomq_job_group(d)) == "g");
    CHECK(payload_of(d) == "doomed");
    CHECK(std::string(echomq_job_last_error(d)) == "second error");
    CHECK(echomq_job_attempt(d) == 2);
    CHECK(echomq_job_max_attempts(d) == 2);
    CHECK(echomq_job_dead_at_ms(d) >= echomq_job_enqueued_at_ms(d));
    CHECK(echomq_job_dead_at_ms(d) > 0);
    CHECK(echomq_job_lease_until_ms(d) == 0);
  }
  // A dead job is not leased: its last holder is stale.
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ESTALE, echomq_ack(c.get(), q.c_str(), doomed, echomq_job_token(b.get())));

  uint64_t redriven = 0;
  const uint64_t ids[] = {doomed, doomed + 1000};  // the second is not dead: skipped
  EMQ_REQUIRE_OK(c.get(), echomq_redrive(c.get(), q.c_str(), ids, 2, &redriven));
  CHECK(redriven == 1);
  CHECK(stats(c.get(), q).dead == 0);
  CHECK(echomq_job_list_count(dead_jobs(c.get(), q).get()) == 0);
  require_verified(c.get(), q);

  JobPtr revived = claim(c.get(), q, kLongLease);
  REQUIRE(revived);
  CHECK(echomq_job_id(revived.get()) == doomed);  // its mint position is ahead of the bystander
  CHECK(echomq_job_attempt(revived.get()) == 1);    // the first of a fresh budget
  CHECK(echomq_job_token(revived.get()) != echomq_job_token(b.get()));
  // A fresh budget: it can fail once more without dying.
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), doomed, echomq_job_token(revived.get()), "third", 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_RETRY);
  JobPtr last = claim(c.get(), q, kLongLease);
  REQUIRE(last);
  CHECK(echomq_job_attempt(last.get()) == 2);
  ack(c.get(), q, last.get());
  JobPtr bystander = claim(c.get(), q, kLongLease);
  REQUIRE(bystander);
  ack(c.get(), q, bystander.get());
  require_verified(c.get(), q);
}

TEST_CASE("an expired lease on the last attempt dead-letters the job", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("expdead");
  const echomq_enqueue_options one = attempts(1);
  const uint64_t id = enqueue(c.get(), q, "g", "once", &one);
  JobPtr job = claim(c.get(), q, 50);
  REQUIRE(job);
  sleep_ms(250);
  CHECK_FALSE(claim(c.get(), q, kLongLease));  // recovery runs inside claim
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.dead == 1);
  CHECK(s.leased == 0);
  JobListPtr dead = dead_jobs(c.get(), q);
  REQUIRE(echomq_job_list_count(dead.get()) == 1);
  CHECK(echomq_job_id(echomq_job_list_at(dead.get(), 0)) == id);
  CHECK(echomq_job_attempt(echomq_job_list_at(dead.get(), 0)) == 1);
  // The fencing token of its last delivery, as everywhere (not an attempt count).
  CHECK(echomq_job_token(echomq_job_list_at(dead.get(), 0)) == echomq_job_token(job.get()));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ESTALE, echomq_ack(c.get(), q.c_str(), id, echomq_job_token(job.get())));
  require_verified(c.get(), q);
}

TEST_CASE("a fail reason is cut at ECHOMQ_REASON_MAX bytes, NULL means none", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("reason");
  const echomq_enqueue_options one = attempts(1);
  const uint64_t long_id = enqueue(c.get(), q, "g", "long", &one);
  const uint64_t null_id = enqueue(c.get(), q, "g", "null", &one);
  const std::string reason(ECHOMQ_REASON_MAX + 1000, 'r');
  int outcome = 0;
  JobPtr a = claim(c.get(), q, kLongLease);
  REQUIRE(a);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), long_id, echomq_job_token(a.get()), reason.c_str(), 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_DEAD);
  JobPtr b = claim(c.get(), q, kLongLease);
  REQUIRE(b);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), null_id, echomq_job_token(b.get()), nullptr, 0, nullptr));
  JobListPtr dead = dead_jobs(c.get(), q);
  REQUIRE(echomq_job_list_count(dead.get()) == 2);
  CHECK(std::string(echomq_job_last_error(echomq_job_list_at(dead.get(), 0))) ==
        reason.substr(0, ECHOMQ_REASON_MAX));
  CHECK(std::string(echomq_job_last_error(echomq_job_list_at(dead.get(), 1))) == "");
  require_verified(c.get(), q);
}

TEST_CASE("a second ack of a settled job is ESTALE, an id never minted ENOTFOUND", "[leases]") {
  // A job the queue minted and no longer leases is stale to every settling
  // call, also once it is gone (acked, not retained): the holder lost it.
  // Only an id above the queue's counter is not found (lua/includes/notHeld.lua).
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("settled");
  const uint64_t id = enqueue(c.get(), q, "g", "x");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  const uint64_t token = echomq_job_token(job.get());
  ack(c.get(), q, job.get());
  const Keyspace before = raw.queue_snapshot(q);
  require_stale(c.get(), echomq_ack(c.get(), q.c_str(), id, token), "second ack");
  require_stale(c.get(), echomq_fail(c.get(), q.c_str(), id, token, "x", 0, nullptr), "fail after the ack");
  require_stale(c.get(), echomq_extend(c.get(), q.c_str(), id, token, 1000, nullptr), "extend after the ack");
  require_stale(c.get(), echomq_progress(c.get(), q.c_str(), id, token, "p", 1), "progress after the ack");
  int st = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_ack_many(c.get(), q.c_str(), &id, &token, 1, &st, nullptr));
  CHECK(st == ECHOMQ_ESTALE);
  const uint64_t never = id + 77;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_ack(c.get(), q.c_str(), never, 1));
  CHECK(std::string(echomq_client_errmsg(c.get())) != "");
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_extend(c.get(), q.c_str(), never, 1, 1000, nullptr));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_fail(c.get(), q.c_str(), never, 1, "x", 0, nullptr));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_progress(c.get(), q.c_str(), never, 1, "p", 1));
  CHECK(raw.queue_snapshot(q) == before);  // every refusal changed nothing
  // A dead job and a deleted one: minted, not leased.
  const echomq_enqueue_options once = attempts(1);
  const uint64_t doomed = enqueue(c.get(), q, "g", "y", &once);
  JobPtr d = claim(c.get(), q, kLongLease);
  REQUIRE(echomq_job_id(d.get()) == doomed);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), doomed, echomq_job_token(d.get()), "no", 0, nullptr));
  require_stale(c.get(), echomq_ack(c.get(), q.c_str(), doomed, echomq_job_token(d.get())), "ack of a dead job");
  EMQ_REQUIRE_OK(c.get(), echomq_delete_job(c.get(), q.c_str(), doomed));
  require_stale(c.get(), echomq_ack(c.get(), q.c_str(), doomed, echomq_job_token(d.get())), "ack of a deleted job");
  CHECK(stats(c.get(), q).acked_total == 1);
  require_verified(c.get(), q);
}

TEST_CASE("a process that only claims and acks recovers expired and delayed jobs", "[leases]") {
  auto crashed = connect_client();
  auto worker = connect_client();
  const std::string q = fresh_queue("selfheal");
  std::set<uint64_t> expected;

  // A worker leases five jobs and disappears without settling them.
  for (int i = 0; i < 5; ++i) expected.insert(enqueue(crashed.get(), q, "e" + std::to_string(i % 2), "lost"));
  for (int i = 0; i < 5; ++i) REQUIRE(claim(crashed.get(), q, kShortLease));
  crashed.reset();
  // Five more jobs are delayed.
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 200;
  for (int i = 0; i < 5; ++i) expected.insert(enqueue(worker.get(), q, "d", "later", &later));

  std::set<uint64_t> done;
  const int64_t deadline = mono_ms() + 5000;
  while (done.size() < expected.size() && mono_ms() < deadline) {
    JobPtr job = claim(worker.get(), q, kLongLease);
    if (!job) {
      sleep_ms(20);
      continue;
    }
    if (payload_of(job.get()) == "lost") CHECK(echomq_job_attempt(job.get()) == 2);
    if (payload_of(job.get()) == "later") CHECK(echomq_job_attempt(job.get()) == 1);
    CHECK(done.insert(echomq_job_id(job.get())).second);
    ack(worker.get(), q, job.get());
  }
  CHECK(done == expected);
  echomq_queue_stats s = stats(worker.get(), q);
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  CHECK(s.delayed == 0);
  CHECK(s.acked_total == 10);
  require_verified(worker.get(), q);
}

TEST_CASE("an old token is stale while the job waits in its lane or the delayed set", "[leases]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("stalewait");
  const uint64_t id = enqueue(c.get(), q, "g", "x");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  const uint64_t t1 = echomq_job_token(job.get());
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, t1, "back to the lane", 0, nullptr));
  Keyspace before = raw.queue_snapshot(q);
  require_stale(c.get(), echomq_ack(c.get(), q.c_str(), id, t1), "ack of a pending job");
  require_stale(c.get(), echomq_fail(c.get(), q.c_str(), id, t1, "again", 0, nullptr),
                "fail of a pending job");
  require_stale(c.get(), echomq_extend(c.get(), q.c_str(), id, t1, 1000, nullptr),
                "extend of a pending job");
  CHECK(raw.queue_snapshot(q) == before);

  JobPtr again = claim(c.get(), q, kLongLease);
  REQUIRE(again);
  const uint64_t t2 = echomq_job_token(again.get());
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, t2, "to the delayed set", 60000, nullptr));
  before = raw.queue_snapshot(q);
  require_stale(c.get(), echomq_ack(c.get(), q.c_str(), id, t2), "ack of a delayed job");
  require_stale(c.get(), echomq_extend(c.get(), q.c_str(), id, t2, 1000, nullptr),
                "extend of a delayed job");
  CHECK(raw.queue_snapshot(q) == before);
  CHECK(stats(c.get(), q).delayed == 1);
  require_verified(c.get(), q);
}

TEST_CASE("hundreds of expired leases all come back through claims alone", "[leases]") {
  auto crashed = connect_client();
  auto worker = connect_client();
  const std::string q = fresh_queue("massexpiry");
  const int n = 300;
  for (int i = 0; i < n; ++i) enqueue(crashed.get(), q, "lane" + std::to_string(i % 3), std::to_string(i));
  // Leases long enough that none expires while the 300 claims run on a busy
  // machine (a re-claimed job would use up attempts), short enough to wait out.
  for (int i = 0; i < n; ++i) REQUIRE(claim(crashed.get(), q, 1000));
  crashed.reset();
  echomq_enqueue_options soon = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  soon.delay_ms = 1000;
  for (int i = 0; i < n; ++i) enqueue(worker.get(), q, "ready", "r");
  for (int i = 0; i < n; ++i) enqueue(worker.get(), q, "due", "d", &soon);
  sleep_ms(1200);

  std::set<uint64_t> done;
  int empties = 0;
  const int64_t deadline = mono_ms() + 10000;
  while (done.size() < size_t(3 * n) && mono_ms() < deadline) {
    JobPtr job = claim(worker.get(), q, kLongLease);
    if (!job) {
      ++empties;
      sleep_ms(10);
      continue;
    }
    CHECK(done.insert(echomq_job_id(job.get())).second);
    ack(worker.get(), q, job.get());
  }
  CHECK(done.size() == size_t(3 * n));
  CHECK(empties == 0);  // work was ready all along: recovery keeps pace with claims
  const echomq_queue_stats s = stats(worker.get(), q);
  CHECK(s.leased == 0);
  CHECK(s.delayed == 0);
  CHECK(s.pending == 0);
  require_verified(worker.get(), q);
}

TEST_CASE("claim is not EMPTY while an expired job waits behind many dying ones", "[leases]") {
  // Recovery is bounded per claim; when the first expired leases recovered
  // all die, the claim must still find the live one behind them (bclaim does).
  auto c = connect_client();
  const std::string q = fresh_queue("behinddead");
  const echomq_enqueue_options once = attempts(1);
  for (int i = 0; i < 100; ++i) enqueue(c.get(), q, "dies", "d", &once);
  for (int i = 0; i < 100; ++i) REQUIRE(claim(c.get(), q, 50));
  const uint64_t live = enqueue(c.get(), q, "lives", "l");
  REQUIRE(claim(c.get(), q, 100));  // expires after all of the others
  sleep_ms(300);
  JobPtr job = claim(c.get(), q, kLongLease);
  INFO("dead so far: " << stats(c.get(), q).dead);
  REQUIRE(job);
  CHECK(echomq_job_id(job.get()) == live);
  CHECK(echomq_job_attempt(job.get()) == 2);
  ack(c.get(), q, job.get());
  CHECK(stats(c.get(), q).dead == 100);
  require_verified(c.get(), q);
}

namespace {
/// Milliseconds from the server's now until the job's due time in the delayed set.
int64_t due_in_ms(RawValkey &raw, const std::string &q, uint64_t id) {
  ReplyPtr score = raw.must({"ZSCORE", "emq:{" + q + "}:delayed", std::to_string(id)});
  REQUIRE(score->type == REDIS_REPLY_STRING);
  ReplyPtr now = raw.must({"TIME"});
  REQUIRE(now->elements == 2);
  const int64_t now_ms = std::stoll(now->element[0]->str) * 1000 + std::stoll(now->element[1]->str) / 1000;
  return static_cast<int64_t>(std::stod(std::string(score->str, score->len))) - now_ms;
}
}  // namespace

TEST_CASE("exponential backoff doubles per attempt from 1 s and stops at 1 h", "[leases]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("backoffsteps");
  const echomq_enqueue_options many = attempts(30);
  const uint64_t id = enqueue(c.get(), q, "g", "x", &many);
  const std::map<uint64_t, int64_t> expected = {
      {1, 1000}, {2, 2000}, {3, 4000}, {12, 2048000}, {13, 3600000}, {20, 3600000}};
  for (uint64_t attempt = 1; attempt <= 20; ++attempt) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    REQUIRE(echomq_job_attempt(job.get()) == attempt);
    const uint64_t token = echomq_job_token(job.get());
    const auto want = expected.find(attempt);
    if (want == expected.end()) {  // straight back, to reach the next attempt quickly
      EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, token, "fast", 0, nullptr));
      continue;
    }
    int outcome = 0;
    EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, token, "slow",
                                        ECHOMQ_RETRY_BACKOFF, &outcome));
    REQUIRE(outcome == ECHOMQ_FAIL_DELAYED);
    const int64_t due = due_in_ms(raw, q, id);
    INFO("attempt " << attempt << ": due in " << due << " ms, expected about " << want->second);
    CHECK(due <= want->second);
    CHECK(due >= want->second - 200);
    // Bring it back now, so the next attempt can be claimed without waiting.
    raw.must({"ZADD", "emq:{" + q + "}:delayed", "0", std::to_string(id)});
  }
  require_verified(c.get(), q);
}

TEST_CASE("a redriven job gets a fresh budget of max attempts", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("budget");
  const echomq_enqueue_options two = attempts(2);
  const uint64_t id = enqueue(c.get(), q, "g", "x", &two);
  int outcome = 0;
  for (uint64_t attempt = 1; attempt <= 2; ++attempt) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(job.get()), "no", 0, &outcome));
  }
  REQUIRE(outcome == ECHOMQ_FAIL_DEAD);
  EMQ_REQUIRE_OK(c.get(), echomq_redrive(c.get(), q.c_str(), &id, 1, nullptr));
  for (uint64_t attempt = 1; attempt <= 2; ++attempt) {  // a fresh budget of 2
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    REQUIRE(echomq_job_attempt(job.get()) == attempt);
    EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(job.get()), "no", 0, &outcome));
    CHECK(outcome == (attempt == 2 ? ECHOMQ_FAIL_DEAD : ECHOMQ_FAIL_RETRY));
  }
  CHECK(stats(c.get(), q).dead == 1);
  CHECK(stats(c.get(), q).dead_total == 2);
  require_verified(c.get(), q);
}

TEST_CASE("extend sets the deadline to server now plus the lease", "[leases]") {
  auto c = connect_client();
  const std::string q = fresh_queue("extendnow");
  const uint64_t id = enqueue(c.get(), q, "g", "x");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  const int64_t before = stats(c.get(), q).server_time_ms;
  int64_t until = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), id, echomq_job_token(job.get()), 5000, &until));
  const int64_t after = stats(c.get(), q).server_time_ms;
  CHECK(until >= before + 5000);
  CHECK(until <= after + 5000);  // shorter than the first lease: extend sets, not adds
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

// The fencing token rises with every delivery of a job (docs/architecture.md,
// "Fencing tokens"): redeliveries after a lease ran out, straight retries,
// delayed retries, releases of an unstarted job, and redrives from the dead
// set, many within one millisecond of each other, where the clock alone
// cannot order them.
TEST_CASE("every delivery of a job gets a greater token than all its earlier ones", "[leases][token]") {
  auto c = connect_client();
  const std::string q = fresh_queue("rising");
  const echomq_enqueue_options three = attempts(3);
  const uint64_t id = enqueue(c.get(), q, "g", "again and again", &three);
  std::mt19937 rng(20261204);
  uint64_t last = 0;
  int deliveries = 0;
  for (int round = 0; round < 60; ++round) {
    JobPtr j;
    for (int tries = 0; !j && tries < 200; ++tries) {
      j = claim(c.get(), q, round % 7 == 0 ? 20 : kLongLease);
      if (j) break;
      // An expired lease on its last attempt went dead: redriven.
      EMQ_REQUIRE_OK(c.get(), echomq_redrive(c.get(), q.c_str(), &id, 1, nullptr));
      sleep_ms(5);
    }
    REQUIRE(j);
    REQUIRE(echomq_job_id(j.get()) == id);
    const uint64_t token = echomq_job_token(j.get());
    INFO("round " << round << ": token " << token << " after " << last);
    CHECK(token > last);
    CHECK(token <= static_cast<uint64_t>(ECHOMQ_ID_MAX));
    last = token;
    ++deliveries;
    int outcome = 0;
    if (round % 7 == 0) {
      sleep_ms(40);  // the 20 ms lease runs out: the next claim redelivers it
      continue;
    }
    switch (rng() % 4) {
      case 0:  // straight back to its lane
        EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, token, "again", 0, &outcome));
        break;
      case 1:  // after a short delay
        EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, token, "later", 2, &outcome));
        break;
      case 2: {  // given back unstarted: no attempt used
        SettlePtr s(echomq_settle_create());
        REQUIRE(s);
        EMQ_REQUIRE_OK(c.get(), echomq_settle_fail(s.get(), id, token, nullptr, ECHOMQ_RETRY_RELEASE));
        echomq_job_list *none = nullptr;
        EMQ_REQUIRE_OK(c.get(), echomq_settle_claim(c.get(), q.c_str(), s.get(), kLongLease, 0, 0, &none));
        echomq_job_list_free(none);
        REQUIRE(echomq_settle_status(s.get(), 0) == ECHOMQ_FAIL_RETRY);
        break;
      }
      default:  // dead now, then redriven
        EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, token, "dead", ECHOMQ_RETRY_DEAD, &outcome));
        REQUIRE(outcome == ECHOMQ_FAIL_DEAD);
        EMQ_REQUIRE_OK(c.get(), echomq_redrive(c.get(), q.c_str(), &id, 1, nullptr));
        break;
    }
    if (outcome == ECHOMQ_FAIL_DEAD)  // out of attempts: redriven
      EMQ_REQUIRE_OK(c.get(), echomq_redrive(c.get(), q.c_str(), &id, 1, nullptr));
  }
  CHECK(deliveries == 60);
  require_verified(c.get(), q);
}
