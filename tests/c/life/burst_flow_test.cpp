// Bursting lanes with flows (echomq/lifecycle.h, echomq/flows.h): a flow's
// children wait in a lane with a limit and a burst while other lanes are
// busy. Each parent runs once, after its last child; the burst bound holds
// (a lane at its limit is served only when no lane below its own limit has
// work, and never past its burst); verify stays clean.
#include "../lanes/flows_support.hpp"

#include <map>
#include <random>
#include <string>
#include <vector>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

}  // namespace

TEST_CASE("bursting children of flows: each parent runs once after them, the bound holds", "[burst][flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  const std::string q = fresh_queue("burst_flows");
  std::mt19937 rng(41);
  // kids: limit 2, burst 4; o1..o3 busy with a hard limit of 1; parents in p.
  std::map<std::string, uint32_t> limit{{"kids", 2}, {"o1", 1}, {"o2", 1}, {"o3", 1}, {"p", 0}};
  EMQ_REQUIRE_OK(c, echomq_set_limit_burst(c, q.c_str(), "kids", 2, 4));
  for (const char *g : {"o1", "o2", "o3"}) {
    EMQ_REQUIRE_OK(c, echomq_set_limit(c, q.c_str(), g, 1));
    for (int i = 0; i < 12; ++i) enqueue(c, q, g, "other");
  }
  constexpr int kFlows = 6, kKids = 4;
  std::map<uint64_t, std::vector<uint64_t>> kidsOf;  // parent -> its children
  std::map<uint64_t, int> runs;
  for (int f = 0; f < kFlows; ++f) {
    std::vector<FlowJobSpec> spec{{"parent", "", 0, "p", "parent"}};
    for (int k = 0; k < kKids; ++k) spec.push_back({"k" + std::to_string(k), "parent", 0, "kids", "kid"});
    std::vector<uint64_t> ids = enqueue_flow(c, q, spec);
    kidsOf[ids[0]] = std::vector<uint64_t>(ids.begin() + 1, ids.end());
    runs[ids[0]] = 0;
  }
  require_verified(c, q);
  std::vector<JobPtr> held;
  int bursts = 0, claims = 0;
  for (int step = 0; step < 4000; ++step) {
    if (rng() % 10 < 4 && !held.empty()) {
      const size_t i = rng() % held.size();
      ack(c, q, held[i].get());
      held.erase(held.begin() + static_cast<long>(i));
    } else {
      std::map<std::string, echomq_lane_info> before;
      bool underServiceable = false;
      for (const auto &[g, lim] : limit) {
        before[g] = lane(c, q, g);
        if (before[g].depth > 0 && (lim == 0 || before[g].active < lim)) underServiceable = true;
      }
      JobPtr j = claim(c, q, kLease);
      if (j) {
        ++claims;
        const std::string g = echomq_job_group(j.get());
        const echomq_lane_info &was = before[g];
        INFO("step " << step << ": served " << g << " at " << was.active);
        if (limit[g] != 0 && was.active >= limit[g]) {
          ++bursts;
          REQUIRE(g == "kids");           // only the bursting lane goes past its limit
          REQUIRE_FALSE(underServiceable);  // the bound
          REQUIRE(was.active < 4);          // never past its burst
        }
        if (g == "p") {
          const uint64_t id = echomq_job_id(j.get());
          ++runs[id];
          for (uint64_t kid : kidsOf[id]) REQUIRE(state_of(c, q, kid) == 0);  // after its last child
        }
        held.push_back(std::move(j));
      } else if (held.empty()) {
        break;  // nothing held, nothing to claim: done
      }
    }
    if (step % 50 == 0) require_verified(c, q);
  }
  for (const auto &[id, n] : runs) {
    INFO("parent " << id);
    CHECK(n == 1);
  }
  INFO(claims << " claims, " << bursts << " above a limit");
  CHECK(bursts > 5);
  echomq_queue_stats s = stats(c, q);
  CHECK(s.pending + s.leased + s.delayed == 0);
  CHECK(s.acked_total == 3 * 12 + kFlows * (kKids + 1));
  require_verified(c, q);
}
