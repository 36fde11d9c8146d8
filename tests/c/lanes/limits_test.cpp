// Limits: a lane never holds more leases than its ceiling, leaves the ring at
// the ceiling, rejoins when a slot frees, and costs the other lanes nothing.
#include "test_env.hpp"

#include <map>

using namespace emqtest;

namespace {
constexpr int64_t kLongLease = 60000;
}

TEST_CASE("a lane with limit 2 never holds more than 2 leases and rejoins on ack", "[limits]") {
  auto c = connect_client();
  const std::string q = fresh_queue("lim2");
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "capped", 2));
  for (int i = 0; i < 10; ++i) {
    enqueue(c.get(), q, "capped", "c" + std::to_string(i));
    enqueue(c.get(), q, "free", "f" + std::to_string(i));
  }
  echomq_lane_info info = lane(c.get(), q, "capped");
  CHECK(info.limit == 2);
  CHECK(info.limit_is_default == 0);

  std::vector<JobPtr> capped_held;
  std::vector<JobPtr> free_held;
  // Claim everything that can be claimed: "free" must be fully served while
  // "capped" sits at its ceiling.
  for (int n = 0; n < 12; ++n) {
    INFO("claim #" << n);
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);  // never EMPTY while "free" has work
    if (std::string(echomq_job_group(job.get())) == "capped") {
      capped_held.push_back(std::move(job));
    } else {
      free_held.push_back(std::move(job));
    }
    info = lane(c.get(), q, "capped");
    REQUIRE(info.active <= 2);
    REQUIRE(info.active == capped_held.size());
    if (info.active == 2) {
      CHECK(info.serviceable == 0);
    }
  }
  CHECK(capped_held.size() == 2);
  CHECK(free_held.size() == 10);
  CHECK(lane(c.get(), q, "capped").depth == 8);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.ring == 0);
  CHECK(s.leased == 12);
  CHECK_FALSE(claim(c.get(), q, kLongLease));  // the only lane with work is at its ceiling
  require_verified(c.get(), q);

  // An ack frees a slot: the lane is back in the ring at once.
  ack(c.get(), q, capped_held.front().get());
  capped_held.erase(capped_held.begin());
  info = lane(c.get(), q, "capped");
  CHECK(info.serviceable == 1);
  CHECK(info.active == 1);
  CHECK(stats(c.get(), q).ring == 1);
  JobPtr again = claim(c.get(), q, kLongLease);
  REQUIRE(again);
  CHECK(std::string(echomq_job_group(again.get())) == "capped");
  CHECK(payload_of(again.get()) == "c2");
  CHECK(lane(c.get(), q, "capped").serviceable == 0);
  capped_held.push_back(std::move(again));
  require_verified(c.get(), q);

  for (const auto &job : capped_held) ack(c.get(), q, job.get());
  for (const auto &job : free_held) ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

TEST_CASE("a lane at its ceiling costs the other lanes nothing", "[limits]") {
  auto c = connect_client();
  const std::string q = fresh_queue("limcost");
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "capped", 1));
  for (int i = 0; i < 20; ++i) enqueue(c.get(), q, "capped", std::to_string(i));
  for (const char *g : {"x", "y", "z"}) {
    for (int i = 0; i < 5; ++i) enqueue(c.get(), q, g, std::to_string(i));
  }
  JobPtr capped = claim(c.get(), q, kLongLease);
  REQUIRE(capped);
  REQUIRE(std::string(echomq_job_group(capped.get())) == "capped");
  CHECK(stats(c.get(), q).ring == 3);

  // 15 claims for the 15 jobs of x, y, z: none is spent on the capped lane.
  std::map<std::string, int> served;
  for (int n = 0; n < 15; ++n) {
    JobPtr job = claim(c.get(), q, kLongLease);
    INFO("claim #" << n);
    REQUIRE(job);
    served[echomq_job_group(job.get())]++;
    ack(c.get(), q, job.get());
  }
  CHECK(served["x"] == 5);
  CHECK(served["y"] == 5);
  CHECK(served["z"] == 5);
  CHECK(served.count("capped") == 0);
  CHECK_FALSE(claim(c.get(), q, kLongLease));
  ack(c.get(), q, capped.get());
  require_verified(c.get(), q);
}

TEST_CASE("the queue's default limit applies to existing lanes", "[limits]") {
  auto c = connect_client();
  const std::string q = fresh_queue("limdef");
  for (int i = 0; i < 5; ++i) {
    enqueue(c.get(), q, "a", std::to_string(i));
    enqueue(c.get(), q, "b", std::to_string(i));
    enqueue(c.get(), q, "own", std::to_string(i));
  }
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "own", 3));
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_limit(c.get(), q.c_str(), 1));
  CHECK(stats(c.get(), q).default_limit == 1);
  echomq_lane_info a = lane(c.get(), q, "a");
  CHECK(a.limit == 1);
  CHECK(a.limit_is_default == 1);
  CHECK(lane(c.get(), q, "own").limit == 3);

  std::map<std::string, std::vector<JobPtr>> held;
  for (;;) {
    JobPtr job = claim(c.get(), q, kLongLease);
    if (!job) break;
    held[echomq_job_group(job.get())].push_back(std::move(job));
    REQUIRE(held.size() <= 3);
  }
  CHECK(held["a"].size() == 1);
  CHECK(held["b"].size() == 1);
  CHECK(held["own"].size() == 3);
  CHECK(stats(c.get(), q).ring == 0);
  require_verified(c.get(), q);

  // Clearing the lane's own limit falls back to the default (it is over it now).
  EMQ_REQUIRE_OK(c.get(), echomq_clear_limit(c.get(), q.c_str(), "own"));
  echomq_lane_info own = lane(c.get(), q, "own");
  CHECK(own.limit == 1);
  CHECK(own.limit_is_default == 1);
  CHECK(own.serviceable == 0);
  require_verified(c.get(), q);

  // Clearing the default makes every lane unlimited again, at once.
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_limit(c.get(), q.c_str(), 0));
  CHECK(lane(c.get(), q, "a").limit == 0);
  CHECK(lane(c.get(), q, "a").serviceable == 1);
  CHECK(stats(c.get(), q).ring == 3);
  int more = 0;
  while (JobPtr job = claim(c.get(), q, kLongLease)) {
    held[echomq_job_group(job.get())].push_back(std::move(job));
    ++more;
  }
  CHECK(more == 15 - 5);
  for (const auto &lane_jobs : held) {
    for (const auto &job : lane_jobs.second) ack(c.get(), q, job.get());
  }
  require_verified(c.get(), q);
}

TEST_CASE("lowering a limit under the lane's active count stops its service", "[limits]") {
  auto c = connect_client();
  const std::string q = fresh_queue("limlow");
  for (int i = 0; i < 6; ++i) enqueue(c.get(), q, "g", std::to_string(i));
  std::vector<JobPtr> held;
  for (int i = 0; i < 3; ++i) held.push_back(claim(c.get(), q, kLongLease));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "g", 1));
  CHECK(lane(c.get(), q, "g").serviceable == 0);
  CHECK_FALSE(claim(c.get(), q, kLongLease));
  require_verified(c.get(), q);

  ack(c.get(), q, held[0].get());
  ack(c.get(), q, held[1].get());
  CHECK(lane(c.get(), q, "g").serviceable == 0);  // active 1 = limit 1
  ack(c.get(), q, held[2].get());
  CHECK(lane(c.get(), q, "g").serviceable == 1);
  JobPtr next = claim(c.get(), q, kLongLease);
  REQUIRE(next);
  CHECK(payload_of(next.get()) == "3");
  ack(c.get(), q, next.get());
  require_verified(c.get(), q);
}

TEST_CASE("raising or clearing a limit brings the lane back at once", "[limits]") {
  auto c = connect_client();
  const std::string q = fresh_queue("limraise");
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "g", 1));
  for (int i = 0; i < 5; ++i) enqueue(c.get(), q, "g", std::to_string(i));
  std::vector<JobPtr> held;
  held.push_back(claim(c.get(), q, kLongLease));
  REQUIRE(held.back());
  CHECK(lane(c.get(), q, "g").serviceable == 0);
  CHECK(stats(c.get(), q).ring == 0);

  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "g", 2));
  CHECK(lane(c.get(), q, "g").serviceable == 1);
  CHECK(stats(c.get(), q).ring == 1);
  held.push_back(claim(c.get(), q, kLongLease));
  REQUIRE(held.back());
  CHECK(lane(c.get(), q, "g").serviceable == 0);
  require_verified(c.get(), q);

  EMQ_REQUIRE_OK(c.get(), echomq_clear_limit(c.get(), q.c_str(), "g"));
  echomq_lane_info info = lane(c.get(), q, "g");
  CHECK(info.limit == 0);
  CHECK(info.serviceable == 1);
  while (JobPtr job = claim(c.get(), q, kLongLease)) held.push_back(std::move(job));
  CHECK(held.size() == 5);
  for (const auto &job : held) ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}
