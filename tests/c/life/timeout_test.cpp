// Time limits (echomq_enqueue_options.timeout_ms, the queue's default):
// the engine halts a handler that runs past its limit and fails the
// attempt "timed out", retried by the usual policy; the server refuses to
// extend a lease past it, and a lease that runs out past it fails the
// attempt "timed out" too.
#include "test_env.hpp"

#include <string>

using namespace emqtest;

namespace {

echomq_enqueue_options with_timeout(int64_t ms) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.timeout_ms = ms;
  return o;
}

}  // namespace

TEST_CASE("a time limit that fires: the handler hears, the attempt fails and is retried", "[timeout]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tmo_fire");
  echomq_enqueue_options o = with_timeout(300);
  const uint64_t id = enqueue(c.get(), q, "g", "slow", &o);
  echomq_worker_options wo = ECHOMQ_WORKER_OPTIONS_INIT;
  wo.slots = 1;
  wo.lease_ms = 10000;  // an extension (every 5 s) would be far too late
  wo.retry_delay_ms = 0;
  wo.report_outcomes = 1;
  WorkerPtr w = start_worker(q, wo);
  echomq_job *raw = nullptr;
  REQUIRE(echomq_worker_next(w.get(), 5000, &raw) == ECHOMQ_OK);
  JobPtr j(raw);
  const int64_t t0 = mono_ms();
  // The handler cooperates: it works until told to stop.
  while (echomq_job_halted(j.get()) == 0 && mono_ms() - t0 < 5000) sleep_ms(5);
  const int64_t ran = mono_ms() - t0;
  CHECK(echomq_job_halted(j.get()) == ECHOMQ_HALT_TIMED_OUT);
  CHECK(ran >= 250);
  CHECK(ran < 1500);
  uint64_t hid = 0, htok = 0;
  int why = 0;
  REQUIRE(echomq_worker_next_halt(w.get(), 1000, &hid, &htok, &why) == ECHOMQ_OK);
  CHECK(hid == id);
  CHECK(why == ECHOMQ_HALT_TIMED_OUT);
  // Whatever it reports, the attempt failed: retried (attempts are left).
  CHECK(echomq_worker_done(w.get(), j.get()) == ECHOMQ_WILL_RETRY);
  // The retry: the same job, its last error "timed out"; this time it is quick.
  REQUIRE(echomq_worker_next(w.get(), 5000, &raw) == ECHOMQ_OK);
  JobPtr again(raw);
  CHECK(echomq_job_id(again.get()) == id);
  CHECK(echomq_job_attempt(again.get()) == 2);
  CHECK(std::string(echomq_job_last_error(again.get())) == "timed out");
  CHECK(echomq_worker_done(w.get(), again.get()) == ECHOMQ_OK);
  CHECK(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  CHECK(worker_stats(w.get()).timed_out == 1);
  CHECK(stats(c.get(), q).acked_total == 1);
  require_verified(c.get(), q);
}

TEST_CASE("a stuck holder: no extension past the limit, the job comes back timed out", "[timeout]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tmo_stuck");
  echomq_enqueue_options o = with_timeout(150);
  const uint64_t id = enqueue(c.get(), q, "g", "x", &o);
  JobPtr j = claim(c.get(), q, 400);
  REQUIRE(j);
  int64_t until = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), id, echomq_job_token(j.get()), 400, &until));
  sleep_ms(200);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ETIMELIMIT,
                     echomq_extend(c.get(), q.c_str(), id, echomq_job_token(j.get()), 400, &until));
  sleep_ms(450);  // the lease (not extended) runs out
  JobPtr again = claim(c.get(), q, 60000);
  REQUIRE(again);
  CHECK(echomq_job_id(again.get()) == id);
  CHECK(echomq_job_attempt(again.get()) == 2);
  CHECK(std::string(echomq_job_last_error(again.get())) == "timed out");
  ack(c.get(), q, again.get());
  require_verified(c.get(), q);
}

TEST_CASE("the queue's default time limit applies to jobs without their own", "[timeout]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tmo_default");
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_timeout(c.get(), q.c_str(), 100));
  echomq_lifecycle_settings s{};
  s.version = ECHOMQ_LIFECYCLE_SETTINGS_VERSION;
  EMQ_REQUIRE_OK(c.get(), echomq_get_lifecycle(c.get(), q.c_str(), &s));
  CHECK(s.default_timeout_ms == 100);
  const uint64_t plain = enqueue(c.get(), q, "g", "a");
  echomq_enqueue_options own = with_timeout(60000);
  const uint64_t longer = enqueue(c.get(), q, "g", "b", &own);
  JobPtr a = claim(c.get(), q, 60000);
  JobPtr b = claim(c.get(), q, 60000);
  REQUIRE(a);
  REQUIRE(b);
  sleep_ms(150);
  int64_t until = 0;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ETIMELIMIT,
                     echomq_extend(c.get(), q.c_str(), plain, echomq_job_token(a.get()), 1000, &until));
  EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), longer, echomq_job_token(b.get()), 1000, &until));
  // Cleared, the limit is gone for the next attempts.
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_timeout(c.get(), q.c_str(), 0));
  EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), plain, echomq_job_token(a.get()), 1000, &until));
  ack(c.get(), q, a.get());
  ack(c.get(), q, b.get());
  require_verified(c.get(), q);
}

TEST_CASE("bad time limits and deadlines are refused and write nothing", "[timeout]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tmo_bad");
  enqueue(c.get(), q, "g", "seed");
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.timeout_ms = -1;
  CHECK(echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, &o, nullptr) == ECHOMQ_EINVAL);
  o.timeout_ms = ECHOMQ_TIMEOUT_MAX_MS + 1;
  CHECK(echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, &o, nullptr) == ECHOMQ_EINVAL);
  o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.ttl_ms = -5;
  CHECK(echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, &o, nullptr) == ECHOMQ_EINVAL);
  o.ttl_ms = 1000;
  o.expires_at_ms = 1;
  CHECK(echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, &o, nullptr) == ECHOMQ_EINVAL);
  o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.expires_at_ms = 1000;  // 1970: passed, on the server's clock
  CHECK(echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, &o, nullptr) == ECHOMQ_EINVAL);
  CHECK(std::string(echomq_client_errmsg(c.get())).find("has passed") != std::string::npos);
  o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.delay_ms = 5000;
  o.ttl_ms = 1000;  // expires before it is due
  CHECK(echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, &o, nullptr) == ECHOMQ_EINVAL);
  o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.expire_flags = ECHOMQ_EXPIRE_DROP;  // drop without a deadline
  CHECK(echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, &o, nullptr) == ECHOMQ_EINVAL);
  CHECK(echomq_set_default_timeout(c.get(), q.c_str(), -1) == ECHOMQ_EINVAL);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.enqueued_total == 1);
  CHECK(s.pending == 1);
  require_verified(c.get(), q);
}
