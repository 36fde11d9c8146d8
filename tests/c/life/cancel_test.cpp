// Cancel (echomq/lifecycle.h): a waiting or delayed job never runs; a
// leased one settles as canceled at its holder's next extension or
// settlement, or when its lease runs out, and is never retried; a finished
// job is a clear error; verify stays clean throughout.
#include "test_env.hpp"

#include <string>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

int cancel(echomq_client *c, const std::string &q, uint64_t id, const char *reason = nullptr,
           unsigned flags = 0, int *was = nullptr) {
  return echomq_cancel(c, q.c_str(), id, reason, flags, was);
}

}  // namespace

TEST_CASE("a waiting job canceled goes to the dead letters and never runs", "[cancel]") {
  auto c = connect_client();
  const std::string q = fresh_queue("cancel_wait");
  const uint64_t a = enqueue(c.get(), q, "g", "a");
  const uint64_t b = enqueue(c.get(), q, "g", "b");
  int was = 0;
  EMQ_REQUIRE_OK(c.get(), cancel(c.get(), q, a, "no longer wanted", 0, &was));
  CHECK(was == ECHOMQ_JOB_PENDING);
  JobPtr j = get_job(c.get(), q, a);
  CHECK(echomq_job_state_of(j.get()) == ECHOMQ_JOB_DEAD);
  CHECK(std::string(echomq_job_last_error(j.get())) == "canceled: no longer wanted");
  require_verified(c.get(), q);
  // Cancelling it again changes nothing and says it was dead.
  EMQ_REQUIRE_OK(c.get(), cancel(c.get(), q, a, nullptr, 0, &was));
  CHECK(was == ECHOMQ_JOB_DEAD);
  // The lane still serves its other job, then nothing.
  JobPtr got = claim(c.get(), q, kLease);
  REQUIRE(got);
  CHECK(echomq_job_id(got.get()) == b);
  ack(c.get(), q, got.get());
  CHECK_FALSE(claim(c.get(), q, kLease));
  CHECK(stats(c.get(), q).dead == 1);
  require_verified(c.get(), q);
}

TEST_CASE("a delayed job canceled never falls due, a removed one is gone", "[cancel]") {
  auto c = connect_client();
  const std::string q = fresh_queue("cancel_delayed");
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.delay_ms = 50;
  const uint64_t d = enqueue(c.get(), q, "g", "d", &o);
  const uint64_t r = enqueue(c.get(), q, "h", "r");
  int was = 0;
  EMQ_REQUIRE_OK(c.get(), cancel(c.get(), q, d, nullptr, 0, &was));
  CHECK(was == ECHOMQ_JOB_DELAYED);
  CHECK(std::string(echomq_job_last_error(get_job(c.get(), q, d).get())) == "canceled");
  EMQ_REQUIRE_OK(c.get(), cancel(c.get(), q, r, "drop it", ECHOMQ_CANCEL_REMOVE, &was));
  CHECK(was == ECHOMQ_JOB_PENDING);
  echomq_job *gone = nullptr;
  CHECK(echomq_get_job(c.get(), q.c_str(), r, &gone) == ECHOMQ_ENOTFOUND);
  sleep_ms(80);
  CHECK_FALSE(claim(c.get(), q, kLease));
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.pending == 0);
  CHECK(s.delayed == 0);
  CHECK(s.dead == 1);
  require_verified(c.get(), q);
}

TEST_CASE("a leased job canceled: its extension says so, its ack settles it as canceled", "[cancel]") {
  auto c = connect_client();
  const std::string q = fresh_queue("cancel_leased");
  const uint64_t id = enqueue(c.get(), q, "g", "x");
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  int was = 0;
  EMQ_REQUIRE_OK(c.get(), cancel(c.get(), q, id, "user asked", 0, &was));
  CHECK(was == ECHOMQ_JOB_LEASED);
  // Still leased until its holder settles it.
  CHECK(echomq_job_state_of(get_job(c.get(), q, id).get()) == ECHOMQ_JOB_LEASED);
  require_verified(c.get(), q);
  int64_t until = 0;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_WAS_CANCELED,
                     echomq_extend(c.get(), q.c_str(), id, echomq_job_token(j.get()), kLease, &until));
  CHECK(until > 0);
  // The holder reports success: it settles as canceled all the same.
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_WAS_CANCELED, echomq_ack(c.get(), q.c_str(), id, echomq_job_token(j.get())));
  JobPtr dead = get_job(c.get(), q, id);
  CHECK(echomq_job_state_of(dead.get()) == ECHOMQ_JOB_DEAD);
  CHECK(std::string(echomq_job_last_error(dead.get())) == "canceled: user asked");
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.leased == 0);
  CHECK(s.acked_total == 0);
  CHECK(s.dead == 1);
  CHECK(lane(c.get(), q, "g").active == 0);
  require_verified(c.get(), q);
}

TEST_CASE("a canceled leased job is never retried: by a fail nor by its lease running out", "[cancel]") {
  auto c = connect_client();
  const std::string q = fresh_queue("cancel_noretry");
  const uint64_t a = enqueue(c.get(), q, "g", "a");
  const uint64_t b = enqueue(c.get(), q, "h", "b");
  JobPtr ja = claim(c.get(), q, kLease);
  JobPtr jb = claim(c.get(), q, 100);
  REQUIRE(ja);
  REQUIRE(jb);
  EMQ_REQUIRE_OK(c.get(), cancel(c.get(), q, a));
  EMQ_REQUIRE_OK(c.get(), cancel(c.get(), q, b));
  int outcome = 0;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_WAS_CANCELED,
                     echomq_fail(c.get(), q.c_str(), a, echomq_job_token(ja.get()), "boom", 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_DEAD);
  // b's lease runs out: the claim that brings it back cancels it.
  sleep_ms(150);
  CHECK_FALSE(claim(c.get(), q, kLease));
  CHECK(echomq_job_state_of(get_job(c.get(), q, b).get()) == ECHOMQ_JOB_DEAD);
  CHECK(std::string(echomq_job_last_error(get_job(c.get(), q, b).get())) == "canceled");
  CHECK(stats(c.get(), q).dead == 2);
  // Every mark is gone with its job.
  require_verified(c.get(), q);
}

TEST_CASE("cancelling a finished job is a clear error, an unknown id is not found", "[cancel]") {
  auto c = connect_client();
  const std::string q = fresh_queue("cancel_done");
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 60000, 0));
  const uint64_t kept = enqueue(c.get(), q, "g", "kept");
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  ack(c.get(), q, j.get());
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EFINISHED, cancel(c.get(), q, kept));
  CHECK(std::string(echomq_client_errmsg(c.get())).find("completed") != std::string::npos);
  // A job out of attempts is dead for its own reason.
  echomq_enqueue_options once = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  once.max_attempts = 1;
  const uint64_t failed = enqueue(c.get(), q, "g", "f", &once);
  JobPtr f = claim(c.get(), q, kLease);
  REQUIRE(f);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), failed, echomq_job_token(f.get()), "bad", 0, nullptr));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EFINISHED, cancel(c.get(), q, failed));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, cancel(c.get(), q, failed + 100));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, cancel(c.get(), q, 0));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, cancel(c.get(), q, kept, nullptr, 8));
  require_verified(c.get(), q);
}
