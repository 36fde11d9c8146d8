// Lanes inside tenants (docs/architecture.md, "Lanes inside tenants"): lane
// "T/L" belongs to tenant T, whose entry "T/" rotates in the outer ring
// while its inner ring rotates its lanes. A tenant with many lanes gets the
// share of a tenant with one; the tenant's weight, limit, pause and rate
// apply across its lanes; lane controls still apply inside. verify checks
// I1 for both rings after every step, and repair mends both.
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <map>
#include <set>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

void fill(echomq_client *c, const std::string &q, const std::string &g, int n) {
  BatchPtr b(echomq_batch_create());
  for (int i = 0; i < n; ++i) REQUIRE(echomq_batch_add(b.get(), g.c_str(), "p", 1) == ECHOMQ_OK);
  EMQ_REQUIRE_OK(c, echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr));
}

std::string tenant_of(const std::string &lane) {
  const size_t s = lane.find('/');
  return s == std::string::npos ? "" : lane.substr(0, s);
}

// Claims up to n jobs one at a time (holding them), returning their lanes.
std::vector<std::string> claim_lanes(echomq_client *c, const std::string &q, int n,
                                     std::vector<JobPtr> *held = nullptr) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    JobPtr j = claim(c, q, kLease);
    if (!j) break;
    out.emplace_back(echomq_job_group(j.get()));
    if (held) held->push_back(std::move(j));
  }
  return out;
}

std::string key(const std::string &q, const std::string &suffix) { return "emq:{" + q + "}:" + suffix; }

}  // namespace

TEST_CASE("a tenant with 100 lanes gets the share of a tenant with one", "[tenants]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-sybil");
  for (int i = 0; i < 100; ++i) fill(c.get(), q, "A/u" + std::to_string(i), 3);
  fill(c.get(), q, "B/u0", 300);
  require_verified(c.get(), q);
  const std::vector<std::string> lanes = claim_lanes(c.get(), q, 200);
  REQUIRE(lanes.size() == 200);
  std::map<std::string, int> per;
  std::set<std::string> aLanes;
  for (size_t i = 0; i < lanes.size(); ++i) {
    per[tenant_of(lanes[i])]++;
    if (tenant_of(lanes[i]) == "A") aLanes.insert(lanes[i]);
    // Every round of the outer ring serves each tenant once.
    if (i % 2 == 1) CHECK(tenant_of(lanes[i]) != tenant_of(lanes[i - 1]));
  }
  CHECK(per["A"] == 100);
  CHECK(per["B"] == 100);
  CHECK(aLanes.size() == 100);  // A's turns rotate over all of its lanes
  require_verified(c.get(), q);
}

TEST_CASE("plain lanes and tenants share the outer ring and names are checked", "[tenants]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-mixed");
  fill(c.get(), q, "solo", 10);
  for (int i = 0; i < 5; ++i) fill(c.get(), q, "T/l" + std::to_string(i), 2);
  const std::vector<std::string> lanes = claim_lanes(c.get(), q, 10);
  int solo = 0;
  for (const std::string &g : lanes) solo += g == "solo";
  CHECK(solo == 5);  // one plain lane, one tenant: half each

  // A tenant's own name holds no jobs; nor does a name ending in '/' otherwise.
  uint64_t id = 0;
  for (const char *bad : {"T/", "a/b/", "/"}) {
    INFO(bad);
    CHECK(echomq_enqueue(c.get(), q.c_str(), bad, "p", 1, nullptr, &id) == ECHOMQ_EINVAL);
    BatchPtr b(echomq_batch_create());
    CHECK(echomq_batch_add(b.get(), bad, "p", 1) == ECHOMQ_EINVAL);
  }
  CHECK(echomq_set_cap(c.get(), q.c_str(), "T/", 5) == ECHOMQ_EINVAL);
  CHECK(echomq_set_limit(c.get(), q.c_str(), "a/b/", 5) == ECHOMQ_EINVAL);
  // A name has at most one '/', after a non-empty tenant part (docs/keys.md,
  // "Tenants"): '/x' and 'a//b' are refused, not plain lanes.
  for (const char *bad : {"/x", "a//b", "a/b/c"}) {
    INFO(bad);
    CHECK(echomq_enqueue(c.get(), q.c_str(), bad, "p", 1, nullptr, &id) == ECHOMQ_EINVAL);
    CHECK(echomq_set_weight(c.get(), q.c_str(), bad, 2) == ECHOMQ_EINVAL);
  }
  CHECK(echomq_check_group_name("T/") == ECHOMQ_OK);
  require_verified(c.get(), q);
}

TEST_CASE("the limit of a tenant counts every lane of the tenant and lane limits still apply inside", "[tenants]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-limit");
  for (int i = 0; i < 4; ++i) fill(c.get(), q, "A/l" + std::to_string(i), 5);
  fill(c.get(), q, "B/l0", 20);
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "A/", 3));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "A/l0", 1));
  std::vector<JobPtr> held;
  std::vector<std::string> lanes = claim_lanes(c.get(), q, 12, &held);
  std::map<std::string, int> per;
  for (const std::string &g : lanes) per[tenant_of(g)]++;
  CHECK(per["A"] == 3);   // the tenant's ceiling across its four lanes
  CHECK(per["B"] == 9);   // the other tenant goes on alone
  int l0 = 0;
  for (const std::string &g : lanes) l0 += g == "A/l0";
  CHECK(l0 <= 1);
  CHECK(lane(c.get(), q, "A/").active == 3);
  require_verified(c.get(), q);
  // An ack frees the tenant: it rejoins and is served again.
  const echomq_job *a = nullptr;
  for (const JobPtr &j : held)
    if (tenant_of(echomq_job_group(j.get())) == "A") a = j.get();
  REQUIRE(a);
  ack(c.get(), q, a);
  require_verified(c.get(), q);
  lanes = claim_lanes(c.get(), q, 2, &held);
  REQUIRE(lanes.size() == 2);
  CHECK((tenant_of(lanes[0]) == "A" || tenant_of(lanes[1]) == "A"));
  CHECK(lane(c.get(), q, "A/").active == 3);
  require_verified(c.get(), q);
}

TEST_CASE("an expired lease frees a tenant from its limit", "[tenants]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-expire");
  fill(c.get(), q, "A/x", 3);
  fill(c.get(), q, "A/y", 3);
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "A/", 1));
  JobPtr first = claim(c.get(), q, 200);
  REQUIRE(first);
  CHECK_FALSE(claim(c.get(), q, kLease));  // at its limit
  require_verified(c.get(), q);
  sleep_ms(300);
  JobPtr again = claim(c.get(), q, kLease);  // the lease expired: the tenant runs again
  REQUIRE(again);
  CHECK(lane(c.get(), q, "A/").active == 1);
  require_verified(c.get(), q);
}

TEST_CASE("pausing a tenant parks all of its lanes and a paused lane inside stays parked", "[tenants]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-pause");
  fill(c.get(), q, "A/x", 4);
  fill(c.get(), q, "A/y", 4);
  fill(c.get(), q, "B/z", 8);
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "A/"));
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "A/y"));
  require_verified(c.get(), q);
  std::vector<JobPtr> held;
  for (const std::string &g : claim_lanes(c.get(), q, 3, &held)) CHECK(g == "B/z");
  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "A/"));
  require_verified(c.get(), q);
  std::vector<std::string> lanes = claim_lanes(c.get(), q, 6, &held);
  int x = 0;
  for (const std::string &g : lanes) {
    CHECK(g != "A/y");
    x += g == "A/x";
  }
  CHECK(x == 3);
  CHECK(lane(c.get(), q, "A/").paused == 0);
  require_verified(c.get(), q);
}

TEST_CASE("the weight of a tenant sets its share of wclaim turns from its head lane", "[tenants]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-weight");
  fill(c.get(), q, "A/x", 30);
  fill(c.get(), q, "A/y", 30);
  fill(c.get(), q, "B/z", 30);
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "A/", 3));
  std::map<std::string, int> per;
  for (int turn = 0; turn < 6; ++turn) {
    JobListPtr l = wclaim(c.get(), q, kLease, ECHOMQ_WCLAIM_MAX);
    REQUIRE(l);
    const size_t n = echomq_job_list_count(l.get());
    const std::string g = echomq_job_group(echomq_job_list_at(l.get(), 0));
    for (size_t i = 0; i < n; ++i) CHECK(std::string(echomq_job_group(echomq_job_list_at(l.get(), i))) == g);
    CHECK(n == (tenant_of(g) == "A" ? 3u : 1u));
    per[g] += static_cast<int>(n);
  }
  CHECK(per["A/x"] == 6);  // A's turns alternate over its lanes
  CHECK(per["A/y"] == 3);
  CHECK(per["B/z"] == 3);
  require_verified(c.get(), q);
}

TEST_CASE("the rate limit of a tenant throttles all of its lanes", "[tenants]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-rate");
  fill(c.get(), q, "A/x", 5);
  fill(c.get(), q, "A/y", 5);
  fill(c.get(), q, "B/z", 10);
  EMQ_REQUIRE_OK(c.get(), echomq_set_rate(c.get(), q.c_str(), "A/", 2, 60000, 2));
  std::vector<JobPtr> held;
  std::map<std::string, int> per;
  for (const std::string &g : claim_lanes(c.get(), q, 12, &held)) per[tenant_of(g)]++;
  CHECK(per["A"] == 2);   // its burst, over both lanes
  CHECK(per["B"] == 10);
  require_verified(c.get(), q);  // A waits in throttled: not a violation
  // The queue default rate is for lanes, never a tenant.
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_rate(c.get(), q.c_str(), 100, 1000, 100));
  CHECK(lane(c.get(), q, "A/").rate_jobs == 2);
}

TEST_CASE("the counts and directory entry of a tenant follow its lanes", "[tenants]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-counts");
  fill(c.get(), q, "A/x", 2);
  fill(c.get(), q, "A/y", 1);
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 60000;
  enqueue(c.get(), q, "A/y", "d", &later);
  echomq_lane_info t = lane(c.get(), q, "A/");
  CHECK(t.known == 1);
  CHECK(t.served == 0);
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  t = lane(c.get(), q, "A/");
  CHECK(t.active == 1);
  CHECK(t.served == 1);
  require_verified(c.get(), q);
  ack(c.get(), q, j.get());
  for (int i = 0; i < 2; ++i) {
    JobPtr k = claim(c.get(), q, kLease);
    REQUIRE(k);
    ack(c.get(), q, k.get());
  }
  require_verified(c.get(), q);
  uint64_t removed = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_purge_lane_all(c.get(), q.c_str(), "A/y", 1, &removed));
  CHECK(removed == 1);  // the delayed job
  require_verified(c.get(), q);
  CHECK(lane(c.get(), q, "A/").known == 0);  // no live job, no setting: the tenant leaves the directory
}

TEST_CASE("verify reports broken tenant rings and repair mends them", "[tenants][verify]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-repair");
  fill(c.get(), q, "A/x", 2);
  fill(c.get(), q, "A/y", 2);
  fill(c.get(), q, "B/z", 2);
  JobPtr held = claim(c.get(), q, kLease);
  REQUIRE(held);
  require_verified(c.get(), q);
  RawValkey raw;
  auto repair = [&] {
    std::string cursor;
    for (int i = 0; i < 50; ++i) {
      echomq_report *r = nullptr;
      EMQ_REQUIRE_OK(c.get(), echomq_repair(c.get(), q.c_str(), 1, cursor.c_str(), 1000, &r));
      ReportPtr rp(r);
      const char *next = echomq_report_cursor(rp.get());
      cursor = next ? next : "";
      if (cursor.empty()) break;
    }
    require_verified(c.get(), q);
  };
  const std::vector<std::vector<std::string>> breaks = {
      {"LREM", key(q, "t:A:ring"), "0", "A/y"},          // a serviceable lane missing from its tenant's ring
      {"RPUSH", key(q, "t:A:ring"), "A/x"},              // a lane twice in its tenant's ring
      {"RPUSH", key(q, "t:A:ring"), "B/z"},              // another tenant's lane
      {"RPUSH", key(q, "ring"), "A/x"},                  // a tenant's lane in the outer ring
      {"LREM", key(q, "ring"), "0", "B/"},               // a serviceable tenant missing from the outer ring
      {"RPUSH", key(q, "ring"), "A/"},                   // a tenant twice in the outer ring
      {"HSET", key(q, "gactive"), "A/", "7"},            // a tenant's active count off
      {"HSET", key(q, "glive"), "B/", "9"},              // a tenant's live count off
      {"RPUSH", key(q, "t:C:ring"), "C/gone"},           // the ring of a tenant with no work
  };
  for (const auto &b : breaks) {
    INFO(b[0] << " " << b[1] << " " << b.back());
    raw.must(b);
    CHECK_FALSE(violations(c.get(), q).empty());
    repair();
  }
  // Still served fairly after the repairs.
  std::map<std::string, int> per;
  std::vector<JobPtr> keep;
  for (const std::string &g : claim_lanes(c.get(), q, 4, &keep)) per[tenant_of(g)]++;
  CHECK(per["A"] == 2);
  CHECK(per["B"] == 2);
}

TEST_CASE("in cost mode a tenant is charged for the work of its lanes", "[tenants][cost]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-cost");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 10));
  for (int i = 0; i < 10; ++i) fill(c.get(), q, "A/u" + std::to_string(i), 20);
  fill(c.get(), q, "B/u0", 200);
  // A's jobs cost 10x B's: by cost, B gets about ten jobs to A's one.
  std::map<std::string, int> per;
  for (int s = 0; s < 220; ++s) {
    JobPtr j = claim(c.get(), q, kLease);
    REQUIRE(j);
    const std::string g = echomq_job_group(j.get());
    EMQ_REQUIRE_OK(c.get(), echomq_charge(c.get(), q.c_str(), g.c_str(), tenant_of(g) == "A" ? 100 : 10));
    ack(c.get(), q, j.get());
    per[tenant_of(g)]++;
  }
  RawValkey raw;
  ReplyPtr lanes_v = raw.must({"HEXISTS", key(q, "gvt"), "A/u0"});
  CHECK(lanes_v->integer == 0);  // the tenant is charged, not its lanes
  ReplyPtr tv = raw.must({"HEXISTS", key(q, "gvt"), "A/"});
  CHECK(tv->integer == 1);
  const double cost_a = per["A"] * 100.0, cost_b = per["B"] * 10.0;
  CHECK(std::abs(cost_a - cost_b) <= 10 + 100);  // quantum + largest job
  require_verified(c.get(), q);
}

TEST_CASE("stats counts lanes without the tenants' own entries, and the tenants", "[tenants]") {
  auto c = connect_client();
  const std::string q = fresh_queue("tenants-stats");
  for (int i = 0; i < 10; ++i) fill(c.get(), q, "acme/u" + std::to_string(i), 2);
  fill(c.get(), q, "solo/main", 3);
  fill(c.get(), q, "plain", 1);
  // Plain lanes around the tenants' ranges in name order ('0' follows '/').
  fill(c.get(), q, "acme0", 1);
  fill(c.get(), q, "acme.x", 1);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.lanes == 14);  // acme's 10, solo/main, plain, acme0, acme.x: not acme/ and solo/
  CHECK(s.tenants == 2);
  // A setting on a tenant with no job lists its entry alone: a tenant, no lane.
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "idle/", 2));
  s = stats(c.get(), q);
  CHECK(s.lanes == 14);
  CHECK(s.tenants == 3);
  // A directory of more names than one step reads is counted in steps:
  // 12,000 plain lanes around tenants big and small.
  const std::string many = fresh_queue("tenants-stats-many");
  auto lanes = [&](const std::string &prefix, const std::string &suffix, int n) {
    BatchPtr b(echomq_batch_create());
    for (int i = 0; i < n; ++i)
      REQUIRE(echomq_batch_add(b.get(), (prefix + std::to_string(i) + suffix).c_str(), "p", 1) == ECHOMQ_OK);
    EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), many.c_str(), b.get(), nullptr));
  };
  lanes("m", "", 6000);
  lanes("t", "/l", 3000);
  lanes("big/l", "", 2500);
  lanes("z", "", 6000);
  s = stats(c.get(), many);
  CHECK(s.lanes == 6000 + 3000 + 2500 + 6000);
  CHECK(s.tenants == 3001);
  // A queue without tenants pays nothing: its count is the directory's size.
  const std::string plain = fresh_queue("tenants-stats-plain");
  fill(c.get(), plain, "a", 1);
  fill(c.get(), plain, "b", 1);
  s = stats(c.get(), plain);
  CHECK(s.lanes == 2);
  CHECK(s.tenants == 0);
  require_verified(c.get(), q);
}
