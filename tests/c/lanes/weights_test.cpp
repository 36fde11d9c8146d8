// wclaim: a lane of weight w gets w jobs per ring turn, never more than its
// depth, its limit headroom or the caller's max allow.
#include "test_env.hpp"

#include "raw_valkey.hpp"

#include <algorithm>
#include <cmath>
#include <map>

using namespace emqtest;

namespace {

constexpr int64_t kLongLease = 60000;

void ack_all(echomq_client *c, const std::string &q, const echomq_job_list *list) {
  for (size_t i = 0; i < echomq_job_list_count(list); ++i) ack(c, q, echomq_job_list_at(list, i));
}

/// Jobs of a list are one lane's, in mint order.
void require_one_lane_in_mint_order(const echomq_job_list *list) {
  const size_t n = echomq_job_list_count(list);
  REQUIRE(n >= 1);
  REQUIRE(echomq_job_list_at(list, n) == nullptr);
  const std::string group = echomq_job_group(echomq_job_list_at(list, 0));
  for (size_t i = 1; i < n; ++i) {
    REQUIRE(std::string(echomq_job_group(echomq_job_list_at(list, i))) == group);
    REQUIRE(echomq_job_id(echomq_job_list_at(list, i)) >
            echomq_job_id(echomq_job_list_at(list, i - 1)));
  }
}

}  // namespace

TEST_CASE("weights 1, 2, 3 are served 1:2:3 in every ring turn", "[weights]") {
  auto c = connect_client();
  const std::string q = fresh_queue("w123");
  const std::map<std::string, uint32_t> weights = {{"w1", 1}, {"w2", 2}, {"w3", 3}};
  // Two weights set before the backlog, one after: both apply to the backlog.
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "w1", 1));
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "w2", 2));
  for (int i = 0; i < 60; ++i) {
    for (const auto &w : weights) enqueue(c.get(), q, w.first, w.first + "#" + std::to_string(i));
  }
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "w3", 3));
  CHECK(lane(c.get(), q, "w3").weight == 3);
  CHECK(lane(c.get(), q, "w3").weight_is_default == 0);

  std::map<std::string, uint64_t> served;
  const int turns = 10;
  for (int turn = 0; turn < turns; ++turn) {
    std::map<std::string, uint64_t> this_turn;
    for (int step = 0; step < 3; ++step) {
      JobListPtr list = wclaim(c.get(), q, kLongLease, 100);
      REQUIRE(list);
      require_one_lane_in_mint_order(list.get());
      const std::string group = echomq_job_group(echomq_job_list_at(list.get(), 0));
      INFO("turn " << turn << " step " << step << " lane " << group);
      CHECK(echomq_job_list_count(list.get()) == weights.at(group));
      this_turn[group] += echomq_job_list_count(list.get());
      served[group] += echomq_job_list_count(list.get());
      ack_all(c.get(), q, list.get());

      // The fairness bound of the design, over every prefix of the schedule.
      for (const auto &a : weights) {
        for (const auto &b : weights) {
          const double gap = std::fabs(double(served[a.first]) / a.second -
                                       double(served[b.first]) / b.second);
          CHECK(gap <= 2.0);
        }
      }
    }
    INFO("turn " << turn);
    CHECK(this_turn["w1"] == 1);
    CHECK(this_turn["w2"] == 2);
    CHECK(this_turn["w3"] == 3);
  }
  CHECK(served["w1"] == 10);
  CHECK(served["w2"] == 20);
  CHECK(served["w3"] == 30);
  CHECK(lane(c.get(), q, "w2").served == 20);
  require_verified(c.get(), q);
}

TEST_CASE("the fairness bound holds over every window of wclaim calls", "[weights]") {
  auto c = connect_client();
  const std::string q = fresh_queue("wwindow");
  const std::map<std::string, uint32_t> weights = {{"a", 1}, {"b", 3}, {"c", 4}, {"d", 7}};
  for (const auto &w : weights) {
    EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), w.first.c_str(), w.second));
  }
  for (int i = 0; i < 120; ++i) {
    for (const auto &w : weights) enqueue(c.get(), q, w.first, w.first);
  }
  // 40 calls = 10 turns; every lane stays backlogged (d needs 70 of its 120).
  std::vector<std::string> schedule;  // one entry per job served
  for (int step = 0; step < 40; ++step) {
    JobListPtr list = wclaim(c.get(), q, kLongLease, 1000);
    REQUIRE(list);
    require_one_lane_in_mint_order(list.get());
    for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i) {
      schedule.emplace_back(echomq_job_group(echomq_job_list_at(list.get(), i)));
    }
    ack_all(c.get(), q, list.get());
  }
  REQUIRE(schedule.size() == 10u * (1 + 3 + 4 + 7));
  double worst = 0;
  for (size_t from = 0; from < schedule.size(); ++from) {
    std::map<std::string, double> served;
    for (size_t to = from; to < schedule.size(); ++to) {
      served[schedule[to]] += 1;
      for (const auto &x : weights) {
        for (const auto &y : weights) {
          worst = std::max(worst, std::fabs(served[x.first] / x.second - served[y.first] / y.second));
        }
      }
    }
  }
  INFO("largest |served_i/w_i - served_j/w_j| over any window: " << worst);
  CHECK(worst <= 2.0);
  require_verified(c.get(), q);
}

TEST_CASE("a weight change applies from the lane's next turn", "[weights]") {
  auto c = connect_client();
  const std::string q = fresh_queue("wchange");
  for (int i = 0; i < 20; ++i) {
    enqueue(c.get(), q, "x", "x");
    enqueue(c.get(), q, "y", "y");
  }
  JobListPtr first = wclaim(c.get(), q, kLongLease, 100);  // x, weight 1
  REQUIRE(first);
  CHECK(echomq_job_list_count(first.get()) == 1);
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "x", 5));
  JobListPtr second = wclaim(c.get(), q, kLongLease, 100);  // y, weight 1
  REQUIRE(second);
  CHECK(std::string(echomq_job_group(echomq_job_list_at(second.get(), 0))) == "y");
  CHECK(echomq_job_list_count(second.get()) == 1);
  JobListPtr third = wclaim(c.get(), q, kLongLease, 100);  // x again, now weight 5
  REQUIRE(third);
  CHECK(std::string(echomq_job_group(echomq_job_list_at(third.get(), 0))) == "x");
  CHECK(echomq_job_list_count(third.get()) == 5);
  for (auto *l : {first.get(), second.get(), third.get()}) ack_all(c.get(), q, l);
  require_verified(c.get(), q);
}

TEST_CASE("wclaim takes at most the lane's depth", "[weights]") {
  auto c = connect_client();
  const std::string q = fresh_queue("wdepth");
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", 5));
  enqueue(c.get(), q, "g", "one");
  enqueue(c.get(), q, "g", "two");
  JobListPtr list = wclaim(c.get(), q, kLongLease, 100);
  REQUIRE(list);
  CHECK(echomq_job_list_count(list.get()) == 2);
  require_one_lane_in_mint_order(list.get());
  CHECK(payload_of(echomq_job_list_at(list.get(), 0)) == "one");
  CHECK(payload_of(echomq_job_list_at(list.get(), 1)) == "two");
  CHECK_FALSE(wclaim(c.get(), q, kLongLease, 100));
  CHECK(lane(c.get(), q, "g").active == 2);
  require_verified(c.get(), q);
  ack_all(c.get(), q, list.get());
  require_verified(c.get(), q);
}

TEST_CASE("wclaim takes at most the lane's limit headroom", "[weights]") {
  auto c = connect_client();
  const std::string q = fresh_queue("whead");
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", 5));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "g", 3));
  for (int i = 0; i < 10; ++i) enqueue(c.get(), q, "g", std::to_string(i));

  JobListPtr first = wclaim(c.get(), q, kLongLease, 100);
  REQUIRE(first);
  CHECK(echomq_job_list_count(first.get()) == 3);
  CHECK(lane(c.get(), q, "g").active == 3);
  CHECK(lane(c.get(), q, "g").serviceable == 0);
  CHECK_FALSE(wclaim(c.get(), q, kLongLease, 100));  // at its ceiling

  ack(c.get(), q, echomq_job_list_at(first.get(), 0));  // one slot of headroom
  JobListPtr second = wclaim(c.get(), q, kLongLease, 100);
  REQUIRE(second);
  CHECK(echomq_job_list_count(second.get()) == 1);
  CHECK(payload_of(echomq_job_list_at(second.get(), 0)) == "3");
  CHECK(lane(c.get(), q, "g").active == 3);
  require_verified(c.get(), q);

  ack(c.get(), q, echomq_job_list_at(first.get(), 1));
  ack(c.get(), q, echomq_job_list_at(first.get(), 2));
  ack_all(c.get(), q, second.get());
  require_verified(c.get(), q);
}

TEST_CASE("wclaim takes at most the caller's max", "[weights]") {
  auto c = connect_client();
  const std::string q = fresh_queue("wmax");
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", 5));
  for (int i = 0; i < 10; ++i) enqueue(c.get(), q, "g", std::to_string(i));
  JobListPtr list = wclaim(c.get(), q, kLongLease, 2);
  REQUIRE(list);
  CHECK(echomq_job_list_count(list.get()) == 2);
  CHECK(lane(c.get(), q, "g").depth == 8);
  ack_all(c.get(), q, list.get());

  JobListPtr one = wclaim(c.get(), q, kLongLease, 1);
  REQUIRE(one);
  CHECK(echomq_job_list_count(one.get()) == 1);
  ack_all(c.get(), q, one.get());
  require_verified(c.get(), q);
}

TEST_CASE("the default weight applies to lanes without their own", "[weights]") {
  auto c = connect_client();
  const std::string q = fresh_queue("wdef");
  for (int i = 0; i < 10; ++i) {
    enqueue(c.get(), q, "a", std::to_string(i));
    enqueue(c.get(), q, "b", std::to_string(i));
  }
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_weight(c.get(), q.c_str(), 2));
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "b", 4));
  CHECK(stats(c.get(), q).default_weight == 2);
  echomq_lane_info a = lane(c.get(), q, "a");
  CHECK(a.weight == 2);
  CHECK(a.weight_is_default == 1);

  std::map<std::string, size_t> got;
  for (int step = 0; step < 2; ++step) {
    JobListPtr list = wclaim(c.get(), q, kLongLease, 100);
    REQUIRE(list);
    got[echomq_job_group(echomq_job_list_at(list.get(), 0))] = echomq_job_list_count(list.get());
    ack_all(c.get(), q, list.get());
  }
  CHECK(got["a"] == 2);
  CHECK(got["b"] == 4);

  EMQ_REQUIRE_OK(c.get(), echomq_clear_weight(c.get(), q.c_str(), "b"));
  CHECK(lane(c.get(), q, "b").weight == 2);
  CHECK(lane(c.get(), q, "b").weight_is_default == 1);
  require_verified(c.get(), q);
}

TEST_CASE("weight 0 is refused and writes nothing", "[weights]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("w0");
  enqueue(c.get(), q, "g", "x");
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", 2));
  const Keyspace before = raw.queue_snapshot(q);

  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_weight(c.get(), q.c_str(), "g", 0));
  CHECK(std::string(echomq_client_errmsg(c.get())) != "");
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL,
                     echomq_set_weight(c.get(), q.c_str(), "g", ECHOMQ_WEIGHT_MAX + 1u));
  CHECK(std::string(echomq_client_errmsg(c.get())) != "");
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_default_weight(c.get(), q.c_str(), 0));
  CHECK(std::string(echomq_client_errmsg(c.get())) != "");

  const Keyspace after = raw.queue_snapshot(q);
  INFO("keys that changed:\n" << keyspace_diff(before, after));
  CHECK(before == after);
  CHECK_FALSE(before.empty());
  CHECK(lane(c.get(), q, "g").weight == 2);

  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", ECHOMQ_WEIGHT_MAX));
  CHECK(lane(c.get(), q, "g").weight == ECHOMQ_WEIGHT_MAX);
  require_verified(c.get(), q);
}
