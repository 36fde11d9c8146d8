// Worker policy kept once, in the engine (worker options version 4): what
// became of each reported job (report_outcomes), the idle timeout, and the
// defaults every binding reads.
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <cstring>
#include <map>
#include <memory>
#include <string>

using namespace emqtest;

namespace {

echomq_worker_options outcome_options() {
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 1;  // one job at a time: each next() is the job the test expects
  o.report_outcomes = 1;
  return o;
}

// The next job of the engine (asserts one comes).
JobPtr next_job(echomq_worker *w) {
  echomq_job *j = nullptr;
  REQUIRE(echomq_worker_next(w, 5000, &j) == ECHOMQ_OK);
  return JobPtr(j);
}

int state_of(echomq_client *c, const std::string &q, uint64_t id) {
  return echomq_job_state_of(get_job(c, q, id).get());
}

// Acked and not retained: the lookup finds nothing.
bool lookup_status_is_gone(echomq_client *c, const std::string &q, uint64_t id) {
  echomq_job *raw = nullptr;
  const int rc = echomq_get_job(c, q.c_str(), id, &raw);
  echomq_job_free(raw);
  return rc == ECHOMQ_ENOTFOUND;
}

}  // namespace

TEST_CASE("the defaults are the header's, and version 4 adds nothing unasked", "[worker_policy]") {
  echomq_worker_options o;
  std::memset(&o, 0x5a, sizeof o);
  REQUIRE(echomq_worker_options_init(&o, ECHOMQ_WORKER_OPTIONS_VERSION) == ECHOMQ_OK);
  const echomq_worker_options init = ECHOMQ_WORKER_OPTIONS_INIT;
  CHECK(o.version == 4);
  CHECK(init.version == 4);
  CHECK(o.target_wait_ms == init.target_wait_ms);
  CHECK(o.idle_wait_ms == init.idle_wait_ms);
  CHECK(o.report_outcomes == 0);
  CHECK(o.idle_timeout_ms == 0);
  CHECK(o.slots == 2 * ECHOMQ_WORKER_HANDLERS_DEFAULT);  // handlers running, as many prefetched
  CHECK(o.lease_ms == 30000);
  CHECK(o.retry_delay_ms == ECHOMQ_RETRY_BACKOFF);
  CHECK(ECHOMQ_WORKER_DRAIN_MS_DEFAULT == 30000);
}

TEST_CASE("bad version-4 worker options are refused before any I/O", "[worker_policy]") {
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  echomq_worker *w = nullptr;
  o.report_outcomes = 2;
  CHECK(echomq_worker_new(&w, "valkey://127.0.0.1:1", "q", &o) == ECHOMQ_EINVAL);
  o.report_outcomes = 1;
  o.idle_timeout_ms = -1;
  CHECK(echomq_worker_new(&w, "valkey://127.0.0.1:1", "q", &o) == ECHOMQ_EINVAL);
  o.idle_timeout_ms = ECHOMQ_WAIT_MAX_MS + 1;
  CHECK(echomq_worker_new(&w, "valkey://127.0.0.1:1", "q", &o) == ECHOMQ_EINVAL);
  CHECK(w == nullptr);
  o.idle_timeout_ms = ECHOMQ_WAIT_MAX_MS;
  REQUIRE(echomq_worker_new(&w, "valkey://127.0.0.1:1", "q", &o) == ECHOMQ_OK);
  echomq_worker_free(w);
}

TEST_CASE("report outcomes say what became of each job, as the server then does", "[worker_policy]") {
  auto c = connect_client();
  const std::string q = fresh_queue("policy-outcomes");
  echomq_enqueue_options two = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  two.max_attempts = 2;
  const uint64_t flaky = enqueue(c.get(), q, "a", "flaky", &two);
  WorkerPtr w = start_worker(q, outcome_options());

  // Attempt 1 of 2 fails: retried (straight back, delay 0).
  JobPtr j = next_job(w.get());
  REQUIRE(echomq_job_id(j.get()) == flaky);
  CHECK(echomq_worker_fail(w.get(), j.get(), "once", 0) == ECHOMQ_WILL_RETRY);
  CHECK(echomq_worker_fail(w.get(), j.get(), "twice", 0) == ECHOMQ_ENOTFOUND);  // reported already
  // Attempt 2 of 2 fails: it dies.
  j = next_job(w.get());
  REQUIRE(echomq_job_id(j.get()) == flaky);
  REQUIRE(echomq_job_attempt(j.get()) == 2);
  CHECK(echomq_worker_fail(w.get(), j.get(), "again", 0) == ECHOMQ_WILL_DIE);
  // A redrive gives a fresh budget: attempt 1 of it fails and is retried,
  // though the job has used three attempts in all.
  sleep_ms(200);  // the settlement lands
  CHECK(state_of(c.get(), q, flaky) == ECHOMQ_JOB_DEAD);
  uint64_t moved = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_redrive(c.get(), q.c_str(), &flaky, 1, &moved));
  REQUIRE(moved == 1);
  j = next_job(w.get());
  REQUIRE(echomq_job_attempt(j.get()) == 1);
  CHECK(echomq_worker_fail(w.get(), j.get(), "after redrive", 0) == ECHOMQ_WILL_RETRY);
  j = next_job(w.get());
  CHECK(echomq_worker_fail(w.get(), j.get(), "last", 0) == ECHOMQ_WILL_DIE);

  // Done is OK; a discard dies with attempts left; a delay retries later.
  const uint64_t good = enqueue(c.get(), q, "b", "good");
  const uint64_t hopeless = enqueue(c.get(), q, "c", "hopeless");
  const uint64_t later = enqueue(c.get(), q, "d", "later");
  for (int i = 0; i < 3; ++i) {
    j = next_job(w.get());
    const uint64_t id = echomq_job_id(j.get());
    if (id == good) CHECK(echomq_worker_done(w.get(), j.get()) == ECHOMQ_OK);
    if (id == hopeless) CHECK(echomq_worker_discard(w.get(), j.get(), "bad input") == ECHOMQ_WILL_DIE);
    if (id == later) CHECK(echomq_worker_fail(w.get(), j.get(), "busy", 60000) == ECHOMQ_WILL_RETRY);
  }
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);

  // What the server did matches what the reports said.
  CHECK(state_of(c.get(), q, flaky) == ECHOMQ_JOB_DEAD);
  CHECK(state_of(c.get(), q, hopeless) == ECHOMQ_JOB_DEAD);
  CHECK(state_of(c.get(), q, later) == ECHOMQ_JOB_DELAYED);
  CHECK(lookup_status_is_gone(c.get(), q, good));
  echomq_worker_stats s = worker_stats(w.get());
  CHECK(s.done == 1);
  CHECK(s.dead == 3);
  CHECK(s.retried == 2);
  CHECK(s.delayed == 1);
  CHECK(s.lost == 0);
  require_verified(c.get(), q);
}

TEST_CASE("the worker's own retry policy is predicted too", "[worker_policy]") {
  auto c = connect_client();
  const std::string q = fresh_queue("policy-default");
  const uint64_t id = enqueue(c.get(), q, "a", "x");
  echomq_worker_options o = outcome_options();
  o.retry_delay_ms = ECHOMQ_RETRY_DEAD;  // this worker never retries
  WorkerPtr w = start_worker(q, o);
  JobPtr j = next_job(w.get());
  CHECK(echomq_worker_fail(w.get(), j.get(), "no", ECHOMQ_RETRY_DEFAULT) == ECHOMQ_WILL_DIE);
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  CHECK(state_of(c.get(), q, id) == ECHOMQ_JOB_DEAD);
}

TEST_CASE("without report_outcomes every report taken is ECHOMQ_OK, as before version 4", "[worker_policy]") {
  auto c = connect_client();
  const std::string q = fresh_queue("policy-off");
  echomq_enqueue_options one = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  one.max_attempts = 1;
  enqueue(c.get(), q, "a", "x", &one);
  enqueue(c.get(), q, "b", "y");
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 1;
  WorkerPtr w = start_worker(q, o);
  JobPtr j = next_job(w.get());
  CHECK(echomq_worker_fail(w.get(), j.get(), "dies", 0) == ECHOMQ_OK);
  j = next_job(w.get());
  CHECK(echomq_worker_fail(w.get(), j.get(), "retries", 0) == ECHOMQ_OK);
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  CHECK(stats(c.get(), q).dead == 1);
}

TEST_CASE("a job whose lease the engine found lost is ESTALE with outcomes, ENOTFOUND without", "[worker_policy]") {
  for (int outcomes = 0; outcomes <= 1; ++outcomes) {
    INFO("report_outcomes " << outcomes);
    auto c = connect_client();
    const std::string q = fresh_queue("policy-lost");
    const uint64_t id = enqueue(c.get(), q, "a", "x");
    echomq_worker_options o = outcome_options();
    o.report_outcomes = outcomes;
    o.lease_ms = 2000;  // extended about 1 s after the claim
    WorkerPtr w = start_worker(q, o);
    JobPtr j = next_job(w.get());
    // The lease runs out under the engine (its deadline moved to the past)
    // and another client claims the job: a new delivery, a new token.
    RawValkey raw;
    raw.must({"ZADD", "emq:{" + q + "}:leases", "XX", "1", std::to_string(id)});
    JobPtr stolen = claim(c.get(), q, 60000);
    REQUIRE(stolen != nullptr);
    REQUIRE(echomq_job_id(stolen.get()) == id);
    // The engine's next extension is refused: it learns the lease was lost.
    const int64_t t0 = mono_ms();
    while (worker_stats(w.get()).lost == 0 && mono_ms() - t0 < 5000) sleep_ms(20);
    REQUIRE(worker_stats(w.get()).lost == 1);
    CHECK(echomq_worker_done(w.get(), j.get()) == (outcomes ? ECHOMQ_ESTALE : ECHOMQ_ENOTFOUND));
    CHECK(echomq_worker_done(w.get(), j.get()) == ECHOMQ_ENOTFOUND);  // said once
    ack(c.get(), q, stolen.get());  // the new holder settles it
    REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
    CHECK(worker_stats(w.get()).done == 0);  // nothing was sent for the lost one
    require_verified(c.get(), q);
  }
}

TEST_CASE("an idle engine stops by itself after idle_timeout_ms", "[worker_policy]") {
  auto c = connect_client();
  const std::string q = fresh_queue("policy-idle");
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.idle_timeout_ms = 300;
  o.idle_wait_ms = 10000;  // the stop does not wait for the server-side sleep
  int64_t t0 = mono_ms();
  WorkerPtr w = start_worker(q, o);
  echomq_job *j = nullptr;
  CHECK(echomq_worker_next(w.get(), 5000, &j) == ECHOMQ_ECANCELED);
  int64_t took = mono_ms() - t0;
  CHECK(took >= 250);
  CHECK(took < 2000);
  const int64_t t1 = mono_ms();
  CHECK(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  CHECK(mono_ms() - t1 < 2000);
  CHECK(echomq_worker_next(w.get(), 0, &j) == ECHOMQ_ECANCELED);
}

TEST_CASE("the idle timeout counts from the last job, never while one is held", "[worker_policy]") {
  auto c = connect_client();
  const std::string q = fresh_queue("policy-idle-busy");
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.idle_timeout_ms = 300;
  WorkerPtr w = start_worker(q, o);
  enqueue(c.get(), q, "a", "slow");
  JobPtr j = next_job(w.get());
  sleep_ms(800);  // a handler longer than the idle timeout
  CHECK(echomq_worker_done(w.get(), j.get()) == ECHOMQ_OK);  // still running: not stopped
  const int64_t t0 = mono_ms();
  echomq_job *none = nullptr;
  CHECK(echomq_worker_next(w.get(), 5000, &none) == ECHOMQ_ECANCELED);
  const int64_t took = mono_ms() - t0;
  CHECK(took >= 250);  // counted from the report
  CHECK(took < 2000);
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  CHECK(stats(c.get(), q).acked_total == 1);  // the report was settled before the stop
  require_verified(c.get(), q);
}

TEST_CASE("one way to read an error, for a client as for a worker", "[worker_policy]") {
  auto c = connect_client();
  char buf[64];
  std::memset(buf, 'x', sizeof buf);
  CHECK(echomq_ack(c.get(), "q", 12345, 1) == ECHOMQ_ENOTFOUND);
  CHECK(echomq_client_last_error(c.get(), buf, sizeof buf) == ECHOMQ_ENOTFOUND);
  CHECK(std::string(buf) == std::string(echomq_client_errmsg(c.get())).substr(0, sizeof buf - 1));
  char small[4];
  CHECK(echomq_client_last_error(c.get(), small, sizeof small) == ECHOMQ_ENOTFOUND);
  CHECK(std::strlen(small) == 3);  // cut, NUL-terminated
  CHECK(echomq_client_last_error(c.get(), nullptr, 0) == ECHOMQ_ENOTFOUND);
  EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
  CHECK(echomq_client_last_error(c.get(), buf, sizeof buf) == ECHOMQ_OK);
  CHECK(std::string(buf).empty());
  CHECK(echomq_client_last_error(nullptr, buf, sizeof buf) == ECHOMQ_EINVAL);
  // A worker that cannot connect keeps why, read the same way.
  echomq_worker *w = nullptr;
  REQUIRE(echomq_worker_new(&w, ("valkey://127.0.0.1:" + std::to_string(free_port())).c_str(), "q", nullptr) ==
          ECHOMQ_OK);
  WorkerPtr owner(w);
  CHECK(echomq_worker_start(w) == ECHOMQ_ECONN);
  CHECK(echomq_worker_last_error(w, buf, sizeof buf) == ECHOMQ_ECONN);
  CHECK(std::strlen(buf) > 0);
  CHECK(echomq_worker_last_error(nullptr, buf, sizeof buf) == ECHOMQ_EINVAL);
  CHECK(std::string(echomq_strerror(ECHOMQ_WILL_RETRY)) != echomq_strerror(ECHOMQ_WILL_DIE));
}

TEST_CASE("a result too large never fails a job that succeeded", "[worker_policy][outcomes]") {
  // With report_outcomes the engine drops a result over ECHOMQ_RESULT_MAX
  // and completes the job (it never runs again because of its result); a
  // host's own reason (job report version 3) is taken the same way. Without
  // report_outcomes the report is refused as before version 4 (ETOOLARGE).
  auto c = connect_client();
  const std::string q = fresh_queue("policy-result");
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 0, 10));
  const std::string big(ECHOMQ_RESULT_MAX + 1, 'z');
  echomq_job_report r = ECHOMQ_JOB_REPORT_INIT;
  {
    echomq_worker_options o = outcome_options();
    o.report_outcomes = 0;
    WorkerPtr w = start_worker(q, o);
    const uint64_t id = enqueue(c.get(), q, "g", "old");
    JobPtr j = next_job(w.get());
    r.result = big.data();
    r.result_len = big.size();
    CHECK(echomq_worker_done_with(w.get(), j.get(), &r) == ECHOMQ_ETOOLARGE);
    CHECK(echomq_worker_done(w.get(), j.get()) == ECHOMQ_OK);  // the refused report settled nothing
    REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
    CHECK(state_of(c.get(), q, id) == ECHOMQ_JOB_COMPLETED);
  }
  WorkerPtr w = start_worker(q, outcome_options());
  const uint64_t large = enqueue(c.get(), q, "g", "large");
  JobPtr j = next_job(w.get());
  CHECK(echomq_worker_done_with(w.get(), j.get(), &r) == ECHOMQ_OK);
  const uint64_t odd = enqueue(c.get(), q, "g", "odd");
  j = next_job(w.get());
  echomq_job_report why = ECHOMQ_JOB_REPORT_INIT;
  why.result_dropped = "cannot encode the result: a set";
  CHECK(echomq_worker_done_with(w.get(), j.get(), &why) == ECHOMQ_OK);
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  echomq_worker_stats s = worker_stats(w.get());
  CHECK(s.done == 2);
  CHECK(s.failed == 0);
  for (uint64_t id : {large, odd}) {
    JobPtr done = get_job(c.get(), q, id);
    CHECK(echomq_job_state_of(done.get()) == ECHOMQ_JOB_COMPLETED);
    size_t n = 99;
    echomq_job_result(done.get(), &n);
    CHECK(n == 0);
  }
  require_verified(c.get(), q);
}

TEST_CASE("a result dropped is recorded: the lookup and the completed event say why", "[worker_policy][outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("policy-dropped");
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 0, 10));
  EMQ_REQUIRE_OK(c.get(), echomq_set_events(c.get(), q.c_str(), 100, 0));
  WorkerPtr w = start_worker(q, outcome_options());
  const std::string big(ECHOMQ_RESULT_MAX + 5, 'z');
  const uint64_t large = enqueue(c.get(), q, "g", "large");
  JobPtr j = next_job(w.get());
  echomq_job_report r = ECHOMQ_JOB_REPORT_INIT;
  r.result = big.data();
  r.result_len = big.size();
  CHECK(echomq_worker_done_with(w.get(), j.get(), &r) == ECHOMQ_OK);
  const uint64_t odd = enqueue(c.get(), q, "g", "odd");
  j = next_job(w.get());
  echomq_job_report why = ECHOMQ_JOB_REPORT_INIT;
  why.result_dropped = "cannot encode the result: a set";
  CHECK(echomq_worker_done_with(w.get(), j.get(), &why) == ECHOMQ_OK);
  const uint64_t kept = enqueue(c.get(), q, "g", "kept");
  j = next_job(w.get());
  CHECK(echomq_worker_done_result(w.get(), j.get(), "r", 1) == ECHOMQ_OK);
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  CHECK(std::string(echomq_job_result_dropped(get_job(c.get(), q, large).get())) ==
        "result of 65541 bytes is over ECHOMQ_RESULT_MAX (65536)");
  CHECK(std::string(echomq_job_result_dropped(get_job(c.get(), q, odd).get())) == "cannot encode the result: a set");
  JobPtr k = get_job(c.get(), q, kept);
  CHECK(std::string(echomq_job_result_dropped(k.get())) == "");
  size_t n = 0;
  const char *result = echomq_job_result(k.get(), &n);
  CHECK(std::string(result, n) == "r");
  CHECK(std::string(echomq_job_result_dropped(nullptr)) == "");
  // The completed events: the reason where it was dropped, no field where not.
  echomq_event_list *raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_events_read(c.get(), q.c_str(), "0", 100, 0, &raw));
  std::unique_ptr<echomq_event_list, void (*)(echomq_event_list *)> events(raw, echomq_event_list_free);
  std::map<std::string, std::string> dropped;  // job id -> result_dropped of its completed event
  for (size_t i = 0; i < echomq_event_list_count(raw); ++i) {
    std::map<std::string, std::string> f;
    for (size_t k2 = 0; k2 < echomq_event_list_nfields(raw, i); ++k2) {
      size_t len = 0;
      const char *v = echomq_event_list_value(raw, i, k2, &len);
      f[echomq_event_list_name(raw, i, k2)] = std::string(v, len);
    }
    if (f["type"] == "completed") dropped[f["id"]] = f.count("result_dropped") ? f["result_dropped"] : "<none>";
  }
  CHECK(dropped[std::to_string(large)] == "result of 65541 bytes is over ECHOMQ_RESULT_MAX (65536)");
  CHECK(dropped[std::to_string(odd)] == "cannot encode the result: a set");
  CHECK(dropped[std::to_string(kept)] == "<none>");
  EMQ_REQUIRE_OK(c.get(), echomq_clear_events(c.get(), q.c_str()));
  require_verified(c.get(), q);
}
