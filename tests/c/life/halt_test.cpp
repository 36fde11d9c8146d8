// A worker engine tells a running handler to stop (echomq_job_halted,
// echomq_worker_next_halt): at once for a cancel (the queue's notices), and
// what the report then does (the job settles as canceled).
#include "test_env.hpp"

#include <atomic>
#include <string>
#include <thread>

using namespace emqtest;

namespace {

echomq_worker_options one_slot(int64_t lease_ms) {
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 1;
  o.lease_ms = lease_ms;
  o.report_outcomes = 1;
  return o;
}

JobPtr next_job(echomq_worker *w) {
  echomq_job *j = nullptr;
  REQUIRE(echomq_worker_next(w, 5000, &j) == ECHOMQ_OK);
  return JobPtr(j);
}

}  // namespace

TEST_CASE("a running job canceled: its handler hears at once, its report settles it as canceled", "[halt]") {
  auto c = connect_client();
  const std::string q = fresh_queue("halt_cancel");
  const uint64_t id = enqueue(c.get(), q, "g", "work");
  // A long lease: an extension (every 10 s) would come far too late.
  WorkerPtr w = start_worker(q, one_slot(20000));
  JobPtr j = next_job(w.get());
  REQUIRE(echomq_job_id(j.get()) == id);
  CHECK(echomq_job_halted(j.get()) == 0);
  sleep_ms(200);  // the engine reads the notices once a job runs
  const int64_t t0 = mono_ms();
  int was = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_cancel(c.get(), q.c_str(), id, "stop it", 0, &was));
  CHECK(was == ECHOMQ_JOB_LEASED);
  uint64_t hid = 0, htok = 0;
  int why = 0;
  REQUIRE(echomq_worker_next_halt(w.get(), 5000, &hid, &htok, &why) == ECHOMQ_OK);
  const int64_t heard = mono_ms() - t0;
  CHECK(hid == id);
  CHECK(htok == echomq_job_token(j.get()));
  CHECK(why == ECHOMQ_HALT_CANCELED);
  CHECK(echomq_job_halted(j.get()) == ECHOMQ_HALT_CANCELED);
  CHECK(heard < 2000);
  // The handler reports success anyway: the job settles as canceled.
  CHECK(echomq_worker_done(w.get(), j.get()) == ECHOMQ_WAS_CANCELED);
  CHECK(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  CHECK(worker_stats(w.get()).canceled == 1);
  JobPtr dead = get_job(c.get(), q, id);
  CHECK(echomq_job_state_of(dead.get()) == ECHOMQ_JOB_DEAD);
  CHECK(std::string(echomq_job_last_error(dead.get())) == "canceled: stop it");
  require_verified(c.get(), q);
}

TEST_CASE("without notices a canceled job is heard of at the next extension", "[halt]") {
  auto c = connect_client();
  // A sharded queue has no one notice stream: its engines learn at the
  // next extension, one interval (lease / 2) at most.
  const std::string q = fresh_queue("halt_extend");
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 2));
  const uint64_t id = enqueue(c.get(), q, "g", "work");
  WorkerPtr w = start_worker(q, one_slot(600));
  JobPtr j = next_job(w.get());
  REQUIRE(echomq_job_id(j.get()) == id);
  const int64_t t0 = mono_ms();
  int was = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_cancel(c.get(), q.c_str(), id, nullptr, 0, &was));
  CHECK(was == ECHOMQ_JOB_LEASED);
  uint64_t hid = 0, htok = 0;
  int why = 0;
  REQUIRE(echomq_worker_next_halt(w.get(), 5000, &hid, &htok, &why) == ECHOMQ_OK);
  CHECK(hid == id);
  CHECK(why == ECHOMQ_HALT_CANCELED);
  CHECK(mono_ms() - t0 < 300 + 400);  // one extension interval, with room
  CHECK(echomq_job_halted(j.get()) == ECHOMQ_HALT_CANCELED);
  // A handler that never reports: the engine no longer extends the lease,
  // which runs out, and the claim that brings the job back settles it.
  CHECK(echomq_worker_stop(w.get(), ECHOMQ_STOP_ABANDON, 0) == ECHOMQ_OK);
  sleep_ms(700);
  CHECK_FALSE(claim(c.get(), q, 1000));
  JobPtr dead = get_job(c.get(), q, id);
  CHECK(echomq_job_state_of(dead.get()) == ECHOMQ_JOB_DEAD);
  CHECK(std::string(echomq_job_last_error(dead.get())) == "canceled");
  require_verified(c.get(), q);
}
