// Pause and resume: a paused lane is never served and keeps its jobs.
#include "test_env.hpp"

using namespace emqtest;

namespace {
constexpr int64_t kLongLease = 60000;
}

TEST_CASE("a paused lane is never served, keeps its jobs and rejoins on resume", "[pause]") {
  auto c = connect_client();
  const std::string q = fresh_queue("pause");
  for (int i = 0; i < 5; ++i) {
    enqueue(c.get(), q, "p", "p" + std::to_string(i));
    enqueue(c.get(), q, "other", "o" + std::to_string(i));
  }
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "p"));
  echomq_lane_info info = lane(c.get(), q, "p");
  CHECK(info.paused == 1);
  CHECK(info.serviceable == 0);
  CHECK(info.depth == 5);
  CHECK(stats(c.get(), q).paused == 1);
  CHECK(stats(c.get(), q).ring == 1);

  for (int n = 0; n < 5; ++n) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    CHECK(std::string(echomq_job_group(job.get())) == "other");
    ack(c.get(), q, job.get());
  }
  CHECK_FALSE(claim(c.get(), q, kLongLease));
  CHECK(lane(c.get(), q, "p").depth == 5);
  require_verified(c.get(), q);

  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "p"));
  info = lane(c.get(), q, "p");
  CHECK(info.paused == 0);
  CHECK(info.serviceable == 1);
  CHECK(stats(c.get(), q).paused == 0);
  for (int n = 0; n < 5; ++n) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    CHECK(payload_of(job.get()) == "p" + std::to_string(n));  // mint order survived the pause
    ack(c.get(), q, job.get());
  }
  CHECK_FALSE(claim(c.get(), q, kLongLease));
  require_verified(c.get(), q);
}

TEST_CASE("pausing a lane that does not exist yet holds its first jobs", "[pause]") {
  auto c = connect_client();
  const std::string q = fresh_queue("prepause");
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "future"));
  CHECK(lane(c.get(), q, "future").paused == 1);
  require_verified(c.get(), q);

  enqueue(c.get(), q, "future", "held");
  echomq_lane_info info = lane(c.get(), q, "future");
  CHECK(info.depth == 1);
  CHECK(info.serviceable == 0);
  CHECK(stats(c.get(), q).ring == 0);
  CHECK_FALSE(claim(c.get(), q, kLongLease));
  require_verified(c.get(), q);

  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "future"));
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  CHECK(payload_of(job.get()) == "held");
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

TEST_CASE("pause and resume are idempotent", "[pause]") {
  auto c = connect_client();
  const std::string q = fresh_queue("pidem");
  enqueue(c.get(), q, "g", "x");
  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "g"));  // not paused: no-op
  CHECK(stats(c.get(), q).ring == 1);
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "g"));
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "g"));
  CHECK(stats(c.get(), q).paused == 1);
  CHECK(stats(c.get(), q).ring == 0);
  require_verified(c.get(), q);
  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "g"));
  CHECK(stats(c.get(), q).ring == 1);
  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "g"));
  CHECK(stats(c.get(), q).ring == 1);  // still exactly once
  require_verified(c.get(), q);
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

TEST_CASE("a paused lane's leased jobs can still be settled", "[pause]") {
  auto c = connect_client();
  const std::string q = fresh_queue("pleased");
  enqueue(c.get(), q, "g", "a");
  enqueue(c.get(), q, "g", "b");
  enqueue(c.get(), q, "g", "c");
  JobPtr first = claim(c.get(), q, kLongLease);
  JobPtr second = claim(c.get(), q, kLongLease);
  REQUIRE(first);
  REQUIRE(second);
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "g"));
  ack(c.get(), q, first.get());
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), echomq_job_id(second.get()),
                                      echomq_job_token(second.get()), "later", 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_RETRY);
  echomq_lane_info info = lane(c.get(), q, "g");
  CHECK(info.active == 0);
  CHECK(info.depth == 2);
  CHECK(info.serviceable == 0);  // the retried job did not bring the lane back
  CHECK_FALSE(claim(c.get(), q, kLongLease));
  require_verified(c.get(), q);

  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "g"));
  JobPtr again = claim(c.get(), q, kLongLease);
  REQUIRE(again);
  CHECK(payload_of(again.get()) == "b");  // back at its mint position, before "c"
  CHECK(echomq_job_attempt(again.get()) == 2);
  ack(c.get(), q, again.get());
  require_verified(c.get(), q);
}
