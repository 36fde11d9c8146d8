// A job's life across states: delayed enqueue, default attempts, a ceiling
// freed by an expiry, and no key left behind once everything is acked.
#include "test_env.hpp"

#include "raw_valkey.hpp"

using namespace emqtest;

namespace {
constexpr int64_t kLongLease = 60000;
}

TEST_CASE("a delayed job waits, then joins its lane at its mint position", "[lifecycle]") {
  auto c = connect_client();
  const std::string q = fresh_queue("delay");
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 250;
  const int64_t t0 = mono_ms();
  const uint64_t delayed = enqueue(c.get(), q, "g", "delayed", &later);
  enqueue(c.get(), q, "g", "ready-1");
  enqueue(c.get(), q, "g", "ready-2");
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.delayed == 1);
  CHECK(s.pending == 2);
  CHECK(lane(c.get(), q, "g").depth == 2);

  JobPtr first = claim(c.get(), q, kLongLease);
  REQUIRE(first);
  CHECK(payload_of(first.get()) == "ready-1");  // the delayed job is not due yet
  ack(c.get(), q, first.get());
  REQUIRE(mono_ms() - t0 < 250);
  sleep_ms(t0 + 400 - mono_ms());

  JobPtr second = claim(c.get(), q, kLongLease);
  REQUIRE(second);
  CHECK(echomq_job_id(second.get()) == delayed);  // minted before ready-2
  CHECK(echomq_job_attempt(second.get()) == 1);
  ack(c.get(), q, second.get());
  JobPtr third = claim(c.get(), q, kLongLease);
  REQUIRE(third);
  CHECK(payload_of(third.get()) == "ready-2");
  ack(c.get(), q, third.get());
  CHECK(stats(c.get(), q).delayed == 0);
  require_verified(c.get(), q);
}

TEST_CASE("the queue's default max attempts applies to jobs enqueued with 0", "[lifecycle]") {
  auto c = connect_client();
  const std::string q = fresh_queue("defatt");
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_max_attempts(c.get(), q.c_str(), 1));
  CHECK(stats(c.get(), q).default_max_attempts == 1);
  const uint64_t id = enqueue(c.get(), q, "g", "x");
  echomq_enqueue_options own = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  own.max_attempts = 5;
  enqueue(c.get(), q, "g", "y", &own);

  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  REQUIRE(echomq_job_id(job.get()) == id);
  CHECK(echomq_job_max_attempts(job.get()) == 1);
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(job.get()), "once", 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_DEAD);
  JobPtr other = claim(c.get(), q, kLongLease);
  REQUIRE(other);
  CHECK(echomq_job_max_attempts(other.get()) == 5);
  ack(c.get(), q, other.get());
  require_verified(c.get(), q);
}

TEST_CASE("an expired lease frees its lane's slot under a limit", "[lifecycle]") {
  auto c = connect_client();
  const std::string q = fresh_queue("limexp");
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "g", 1));
  const uint64_t first = enqueue(c.get(), q, "g", "1");
  enqueue(c.get(), q, "g", "2");
  JobPtr lost = claim(c.get(), q, 100);
  REQUIRE(lost);
  CHECK(lane(c.get(), q, "g").serviceable == 0);
  CHECK_FALSE(claim(c.get(), q, kLongLease));
  sleep_ms(300);

  JobPtr again = claim(c.get(), q, kLongLease);  // the expiry freed the slot
  REQUIRE(again);
  CHECK(echomq_job_id(again.get()) == first);
  CHECK(echomq_job_attempt(again.get()) == 2);
  echomq_lane_info info = lane(c.get(), q, "g");
  CHECK(info.active == 1);
  CHECK(info.serviceable == 0);
  require_verified(c.get(), q);
  ack(c.get(), q, again.get());
  JobPtr next = claim(c.get(), q, kLongLease);
  REQUIRE(next);
  ack(c.get(), q, next.get());
  require_verified(c.get(), q);
}

TEST_CASE("acked jobs and emptied lanes leave no key behind", "[lifecycle]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("noleak");
  for (int i = 0; i < 100; ++i) enqueue(c.get(), q, "lane" + std::to_string(i % 10), "x");
  int outcome = 0;
  while (JobPtr job = claim(c.get(), q, kLongLease)) {
    if (echomq_job_attempt(job.get()) == 1 && echomq_job_id(job.get()) % 7 == 0) {
      EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), echomq_job_id(job.get()), echomq_job_token(job.get()),
                                          "retry", 0, &outcome));
    } else {
      ack(c.get(), q, job.get());
    }
  }
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  CHECK(s.lanes == 0);  // no live jobs, no settings
  CHECK(s.acked_total == 100);
  std::string leftovers;
  for (const auto &kv : raw.queue_snapshot(q)) {
    const std::string rest = kv.first.substr(("emq:{" + q + "}:").size());
    // att keeps its mark alone (docs/keys.md, "Marks").
    const bool att_mark_only = rest == "att" && raw.integer({"HLEN", kv.first}) == 1 &&
                               raw.integer({"HEXISTS", kv.first, ""}) == 1;
    if (rest == "jobs" || (rest == "att" && !att_mark_only) || rest == "err" || rest.rfind("g:", 0) == 0)
      leftovers += "\n  " + kv.first;
  }
  INFO("keys left for acked jobs or empty lanes:" << leftovers);
  CHECK(leftovers.empty());
  require_verified(c.get(), q);
}
