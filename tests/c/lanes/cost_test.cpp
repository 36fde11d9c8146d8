// Cost mode (docs/architecture.md, "Fairness by work"): lanes share the cost
// of their work, not their job count. The stated bound: over any window in
// which lanes i and j stay backlogged and uncapped, and every job's cost is
// charged before its lane's next turn,
//   |cost_i / w_i - cost_j / w_j| <= quantum + largest job cost.
// Checked after every claim with reported costs (1, 10 and 100 units), and
// at the end of a run with costs the worker engine measures (sleeping
// handlers); count mode, run the same way, breaks it (so the check can fail).
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <thread>

using namespace emqtest;

namespace {

void fill(echomq_client *c, const std::string &q, const std::string &g, int n) {
  BatchPtr b(echomq_batch_create());
  for (int i = 0; i < n; ++i) REQUIRE(echomq_batch_add(b.get(), g.c_str(), "p", 1) == ECHOMQ_OK);
  EMQ_REQUIRE_OK(c, echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr));
}

struct Lane {
  std::string name;
  uint64_t cost;    // units a job of the lane reports
  uint32_t weight;
  int jobs;
};

// Claims one job at a time, charges its lane the lane's cost and acks it,
// while every lane has work; returns the largest |c_i/w_i - c_j/w_j| seen
// after any claim, and fills `served` (cost per lane).
double run_reported(echomq_client *c, const std::string &q, const std::vector<Lane> &lanes, int steps,
                    std::map<std::string, double> &served) {
  std::map<std::string, const Lane *> of;
  std::map<std::string, int> left;
  for (const Lane &l : lanes) {
    of[l.name] = &l;
    left[l.name] = l.jobs;
    served[l.name] = 0;
    if (l.weight > 1) EMQ_REQUIRE_OK(c, echomq_set_weight(c, q.c_str(), l.name.c_str(), l.weight));
    fill(c, q, l.name, l.jobs);
  }
  double worst = 0;
  for (int s = 0; s < steps; ++s) {
    JobPtr j = claim(c, q, 60000);
    REQUIRE(j);
    const std::string g = echomq_job_group(j.get());
    const Lane *l = of.at(g);
    EMQ_REQUIRE_OK(c, echomq_charge(c, q.c_str(), g.c_str(), l->cost));
    ack(c, q, j.get());
    served[g] += static_cast<double>(l->cost);
    if (--left[g] == 0) break;  // the window ends when a lane runs dry
    double lo = 1e300, hi = -1e300;
    for (const Lane &x : lanes) {
      const double v = served[x.name] / x.weight;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    worst = std::max(worst, hi - lo);
  }
  return worst;
}

}  // namespace

TEST_CASE("cost mode shares reported cost by weight within quantum + largest job", "[cost]") {
  auto c = connect_client();
  const std::vector<Lane> lanes = {{"one", 1, 1, 2500}, {"ten", 10, 1, 400}, {"hundred", 100, 2, 120}};
  constexpr uint64_t kQuantum = 50;
  constexpr double kBound = kQuantum + 100;

  const std::string flat = fresh_queue("cost-flat");
  std::map<std::string, double> sf;
  const double worst_flat = run_reported(c.get(), flat, lanes, 1500, sf);
  INFO("count mode: one " << sf["one"] << ", ten " << sf["ten"] << ", hundred " << sf["hundred"]);
  CHECK(worst_flat > 10 * kBound);  // count mode serves jobs, not cost

  const std::string q = fresh_queue("cost-reported");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), kQuantum));
  uint64_t got = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_get_cost_mode(c.get(), q.c_str(), &got));
  CHECK(got == kQuantum);
  std::map<std::string, double> sc;
  const double worst = run_reported(c.get(), q, lanes, 3000, sc);
  INFO("cost mode: one " << sc["one"] << ", ten " << sc["ten"] << ", hundred " << sc["hundred"] << "; worst gap "
                         << worst);
  CHECK(worst <= kBound);
  CHECK(sc["one"] > 1000);  // the cheap lane was served, not starved
  require_verified(c.get(), q);

  // Off: every lane that sat out is back in the ring, every charge forgotten.
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 0));
  EMQ_REQUIRE_OK(c.get(), echomq_get_cost_mode(c.get(), q.c_str(), &got));
  CHECK(got == 0);
  require_verified(c.get(), q);
  RawValkey raw;
  CHECK(raw.must({"EXISTS", "emq:{" + q + "}:gdebt", "emq:{" + q + "}:gvt"})->integer == 0);
  // The run ended when "one" ran dry: the two lanes with work are in the ring.
  CHECK(raw.must({"LLEN", "emq:{" + q + "}:ring"})->integer == 2);
}

TEST_CASE("a lane that returns in cost mode starts level: no banked credit", "[cost]") {
  auto c = connect_client();
  const std::string q = fresh_queue("cost-return");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 10));
  fill(c.get(), q, "busy", 300);
  for (int i = 0; i < 200; ++i) {  // busy is charged 200 * 5 alone
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    EMQ_REQUIRE_OK(c.get(), echomq_charge(c.get(), q.c_str(), "busy", 5));
    ack(c.get(), q, j.get());
  }
  fill(c.get(), q, "late", 100);
  // A late lane that kept no balance would start at 0 and be served alone
  // for 1000 units; starting level, busy keeps its turns.
  std::map<std::string, int> n;
  for (int i = 0; i < 40; ++i) {
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    const std::string g = echomq_job_group(j.get());
    ++n[g];
    EMQ_REQUIRE_OK(c.get(), echomq_charge(c.get(), q.c_str(), g.c_str(), 5));
    ack(c.get(), q, j.get());
  }
  INFO("busy " << n["busy"] << ", late " << n["late"]);
  CHECK(n["busy"] >= 15);
  CHECK(n["late"] >= 15);
  require_verified(c.get(), q);
}

TEST_CASE("cost mode composes: a paused lane in debt stays out, resumes once", "[cost]") {
  auto c = connect_client();
  const std::string q = fresh_queue("cost-compose");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 1));
  fill(c.get(), q, "a", 20);
  fill(c.get(), q, "b", 20);
  EMQ_REQUIRE_OK(c.get(), echomq_charge(c.get(), q.c_str(), "a", 100));  // a owes 100
  for (int i = 0; i < 3; ++i) {
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    CHECK(std::string(echomq_job_group(j.get())) == "b");
    EMQ_REQUIRE_OK(c.get(), echomq_charge(c.get(), q.c_str(), "b", 1));
    ack(c.get(), q, j.get());
  }
  require_verified(c.get(), q);  // a sits out in gdebt: not a violation
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "a"));
  require_verified(c.get(), q);
  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "a"));
  require_verified(c.get(), q);  // back in the ring once, out of gdebt
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_charge(c.get(), q.c_str(), "bad\nname", 1));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_charge(c.get(), q.c_str(), nullptr, 1));
  // Only a's lane left with work: it is served (the floor rises to it).
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "b"));
  JobPtr j = claim(c.get(), q, 60000);
  REQUIRE(j);
  CHECK(std::string(echomq_job_group(j.get())) == "a");
  require_verified(c.get(), q);
}

TEST_CASE("cost mode with measured time: sleeping handlers share worker time", "[cost][worker]") {
  auto c = connect_client();
  // 10 ms against 1 ms jobs, one host thread, one slot: each job's cost is
  // charged (fused with the next claim) before its lane's next turn.
  auto run = [&](bool cost, int64_t ms, std::map<std::string, int64_t> &us, int64_t &largest) {
    const std::string q = fresh_queue(cost ? "cost-measured" : "count-measured");
    if (cost) EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 5000));
    fill(c.get(), q, "heavy", 400);
    fill(c.get(), q, "light", 3000);
    echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
    o.slots = 1;
    WorkerPtr w = start_worker(q, o);
    const int64_t end = mono_ms() + ms;
    while (mono_ms() < end) {
      echomq_job *j = nullptr;
      REQUIRE(echomq_worker_next(w.get(), 1000, &j) == ECHOMQ_OK);
      JobPtr own(j);
      const std::string g = echomq_job_group(j);
      const auto t0 = std::chrono::steady_clock::now();
      std::this_thread::sleep_for(std::chrono::milliseconds(g == "heavy" ? 10 : 1));
      REQUIRE(echomq_worker_done_with(w.get(), j, nullptr) == ECHOMQ_OK);
      const int64_t took = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::steady_clock::now() - t0).count();
      us[g] += took;
      largest = std::max(largest, took);
    }
    REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
    if (cost) {
      RawValkey raw;
      auto v = [&](const char *g) {
        ReplyPtr r = raw.must({"HGET", "emq:{" + q + "}:gvt", g});
        return r->str ? std::stod(std::string(r->str, r->len)) : 0.0;
      };
      const double gap = std::fabs(v("heavy") - v("light"));
      INFO("engine charges: heavy " << v("heavy") << " µs, light " << v("light") << " µs; largest job " << largest
                                    << " µs");
      // The bound, on what the engine charged (its own measure of the same time).
      CHECK(gap <= 5000 + largest + 2000);
      require_verified(c.get(), q);
    }
  };
  std::map<std::string, int64_t> flat, fair;
  int64_t lf = 0, lc = 0;
  run(false, 1200, flat, lf);
  run(true, 1500, fair, lc);
  const double share_flat = double(flat["heavy"]) / double(flat["heavy"] + flat["light"]);
  const double share_cost = double(fair["heavy"]) / double(fair["heavy"] + fair["light"]);
  INFO("heavy's share of worker time: count mode " << share_flat << ", cost mode " << share_cost);
  CHECK(share_flat > 0.75);
  CHECK(share_cost > 0.35);
  CHECK(share_cost < 0.65);
}
