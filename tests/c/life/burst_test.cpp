// Lane limits that burst (echomq_set_limit_burst): above its limit, up to
// its burst, a lane is served only when no lane below its own limit is
// serviceable. The bound: a lane below its limit is never passed over for
// a bursting one. I1 holds for both rings; batches serve what single
// claims serve.
#include "test_env.hpp"

#include <map>
#include <random>
#include <string>
#include <vector>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

std::string group_of(const echomq_job *j) { return echomq_job_group(j); }

}  // namespace

TEST_CASE("a bursting lane takes the capacity the others leave, after them", "[burst]") {
  auto c = connect_client();
  const std::string q = fresh_queue("burst_basic");
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit_burst(c.get(), q.c_str(), "busy", 2, 5));
  for (int i = 0; i < 20; ++i) enqueue(c.get(), q, "busy", "b" + std::to_string(i));
  for (int i = 0; i < 3; ++i) {
    enqueue(c.get(), q, "q1", "x");
    enqueue(c.get(), q, "q2", "y");
  }
  std::string order;
  std::vector<JobPtr> held;
  for (JobPtr j = claim(c.get(), q, kLease); j; j = claim(c.get(), q, kLease)) {
    order += group_of(j.get()) == "busy" ? "B" : group_of(j.get()) == "q1" ? "1" : "2";
    held.push_back(std::move(j));
    require_verified(c.get(), q);
  }
  // Below its limit busy takes its turns; at 2 it waits for the others.
  CHECK(order == "B12B121" "2BBB");
  echomq_lane_info busy = lane(c.get(), q, "busy");
  CHECK(busy.active == 5);
  CHECK(busy.limit == 2);
  CHECK(busy.burst == 5);
  CHECK(busy.bursting == 0);  // at its burst: out of both rings
  CHECK(stats(c.get(), q).bursting == 0);
  // An ack frees a slot under the burst: back in the burst ring.
  ack(c.get(), q, held.front().get());
  CHECK(lane(c.get(), q, "busy").bursting == 1);
  CHECK(stats(c.get(), q).bursting == 1);
  require_verified(c.get(), q);
  // A quiet lane's new job goes first.
  enqueue(c.get(), q, "q3", "z");
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  CHECK(group_of(j.get()) == "q3");
  JobPtr k = claim(c.get(), q, kLease);
  REQUIRE(k);
  CHECK(group_of(k.get()) == "busy");
  require_verified(c.get(), q);
}

TEST_CASE("the bound: a lane below its limit is never passed over for a bursting one", "[burst]") {
  auto c = connect_client();
  const std::string q = fresh_queue("burst_bound");
  std::mt19937 rng(37);
  const std::vector<std::string> lanes{"a", "b", "c", "d"};
  std::map<std::string, uint32_t> limit{{"a", 1}, {"b", 2}, {"c", 1}, {"d", 3}};
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit_burst(c.get(), q.c_str(), "a", 1, 6));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit_burst(c.get(), q.c_str(), "b", 2, 4));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "c", 1));  // a hard limit
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit_burst(c.get(), q.c_str(), "d", 3, 3));  // burst = limit: none
  std::vector<JobPtr> held;
  int bursts = 0, checked = 0;
  for (int step = 0; step < 700; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 3) {
      enqueue(c.get(), q, lanes[rng() % lanes.size()], "x");
    } else if (op < 5 && !held.empty()) {
      const size_t i = rng() % held.size();
      ack(c.get(), q, held[i].get());
      held.erase(held.begin() + static_cast<long>(i));
    } else {
      // Which lanes are below their limit with work, before the claim.
      std::map<std::string, echomq_lane_info> before;
      bool underServiceable = false;
      for (const auto &g : lanes) {
        before[g] = lane(c.get(), q, g);
        if (before[g].depth > 0 && before[g].active < limit[g]) underServiceable = true;
      }
      JobPtr j = claim(c.get(), q, kLease);
      if (!j) {
        CHECK_FALSE(underServiceable);
        continue;
      }
      const echomq_lane_info &was = before[group_of(j.get())];
      const bool bursting = was.active >= limit[group_of(j.get())];
      INFO("step " << step << ": served " << group_of(j.get()) << " at " << was.active);
      if (bursting) {
        ++bursts;
        CHECK_FALSE(underServiceable);  // the bound
        CHECK(was.burst > was.active);
      }
      ++checked;
      held.push_back(std::move(j));
    }
    if (step % 40 == 0) require_verified(c.get(), q);
  }
  INFO(checked << " claims, " << bursts << " of them above a limit");
  CHECK(bursts > 10);
  CHECK(checked > 100);
  require_verified(c.get(), q);
}

TEST_CASE("a batch serves what single claims serve, across both rings", "[burst]") {
  auto c = connect_client();
  const std::string a = fresh_queue("burst_batch_a"), b = fresh_queue("burst_batch_b");
  for (const std::string &q : {a, b}) {
    EMQ_REQUIRE_OK(c.get(), echomq_set_limit_burst(c.get(), q.c_str(), "x", 1, 4));
    EMQ_REQUIRE_OK(c.get(), echomq_set_limit_burst(c.get(), q.c_str(), "y", 2, 3));
    EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "z", 1));
    for (int i = 0; i < 6; ++i)
      for (const char *g : {"x", "y", "z", "w"}) enqueue(c.get(), q, g, std::string(g) + std::to_string(i));
  }
  echomq_job_list *l = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), a.c_str(), kLease, 20, 0, &l));
  JobListPtr list(l);
  std::string batch, singles;
  for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i)
    batch += payload_of(echomq_job_list_at(list.get(), i)) + " ";
  for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i) {
    JobPtr j = claim(c.get(), b, kLease);
    REQUIRE(j);
    singles += payload_of(j.get()) + " ";
  }
  CHECK(batch == singles);
  CHECK_FALSE(claim(c.get(), b, kLease));  // the batch took everything too
  echomq_job_list *more = nullptr;
  CHECK(echomq_claim_batch(c.get(), a.c_str(), kLease, 5, 0, &more) == ECHOMQ_EMPTY);
  require_verified(c.get(), a);
  require_verified(c.get(), b);
}

TEST_CASE("a tenant bursts over its lanes, a lane of a tenant cannot", "[burst]") {
  auto c = connect_client();
  const std::string q = fresh_queue("burst_tenant");
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit_burst(c.get(), q.c_str(), "T/", 1, 3));
  CHECK(echomq_set_limit_burst(c.get(), q.c_str(), "T/a", 1, 3) == ECHOMQ_EINVAL);
  for (int i = 0; i < 4; ++i) {
    enqueue(c.get(), q, "T/a", "a");
    enqueue(c.get(), q, "T/b", "b");
  }
  enqueue(c.get(), q, "solo", "s");
  std::string order;
  std::vector<JobPtr> held;
  for (JobPtr j = claim(c.get(), q, kLease); j; j = claim(c.get(), q, kLease)) {
    order += group_of(j.get()) + " ";
    held.push_back(std::move(j));
    require_verified(c.get(), q);
  }
  // T at its limit of 1 waits while solo has work, then bursts to 3.
  CHECK(order == "T/a solo T/b T/a ");
  CHECK(lane(c.get(), q, "T/").active == 3);
  ack(c.get(), q, held.front().get());
  CHECK(lane(c.get(), q, "T/").bursting == 1);
  require_verified(c.get(), q);
}

TEST_CASE("bad bursts are refused and change nothing", "[burst]") {
  auto c = connect_client();
  const std::string q = fresh_queue("burst_bad");
  CHECK(echomq_set_limit_burst(c.get(), q.c_str(), "g", 5, 3) == ECHOMQ_EINVAL);  // below the limit
  CHECK(echomq_set_limit_burst(c.get(), q.c_str(), "g", 0, 3) == ECHOMQ_EINVAL);  // no limit
  CHECK(echomq_set_limit_burst(c.get(), q.c_str(), "", 1, 3) == ECHOMQ_EINVAL);
  CHECK(lane(c.get(), q, "g").limit == 0);
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit_burst(c.get(), q.c_str(), "g", 2, 4));
  CHECK(echomq_set_limit(c.get(), q.c_str(), "g", 5) == ECHOMQ_EINVAL);  // above its burst
  CHECK(lane(c.get(), q, "g").limit == 2);
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "g", 3));
  CHECK(lane(c.get(), q, "g").burst == 4);
  EMQ_REQUIRE_OK(c.get(), echomq_clear_limit(c.get(), q.c_str(), "g"));  // clears both
  CHECK(lane(c.get(), q, "g").burst == 0);
  require_verified(c.get(), q);
}
