// Lane controls beyond weight, limit and pause: a rate limit (a token bucket
// on server time) with a hand-set throttle, and a size cap.
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <algorithm>
#include <map>

using namespace emqtest;

namespace {

std::vector<std::string> ring_of(RawValkey &raw, const std::string &q) {
  std::vector<std::string> out;
  ReplyPtr r = raw.must({"LRANGE", "emq:{" + q + "}:ring", "0", "-1"});
  for (size_t i = 0; i < r->elements; ++i) out.emplace_back(r->element[i]->str, r->element[i]->len);
  return out;
}

bool in_ring(RawValkey &raw, const std::string &q, const std::string &g) {
  auto r = ring_of(raw, q);
  return std::find(r.begin(), r.end(), g) != r.end();
}

void fill(echomq_client *c, const std::string &q, const std::string &g, int n) {
  BatchPtr b(echomq_batch_create());
  for (int i = 0; i < n; ++i) REQUIRE(echomq_batch_add(b.get(), g.c_str(), "p", 1) == ECHOMQ_OK);
  EMQ_REQUIRE_OK(c, echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr));
}

}  // namespace

// 20 fast lanes: the check that each gets over 4x the slow lane's share needs
// about 20 x 4 x 10 = 800 claims a second, which a loaded machine still
// manages (a single claim call, not a batch, is what is timed here).
TEST_CASE("a lane limited to 10 jobs/s is served at that rate while 20 lanes run at full speed", "[rate][timed]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("rate");
  fill(c.get(), q, "slow", 200);
  for (int l = 0; l < 20; ++l) fill(c.get(), q, "L" + std::to_string(l), 2000);
  EMQ_REQUIRE_OK(c.get(), echomq_set_rate(c.get(), q.c_str(), "slow", 10, 1000, 0));  // burst 10
  std::map<std::string, int> served;
  std::vector<int64_t> slow_at;  // server ms of each delivery of the slow lane
  const int64_t t0 = mono_ms();
  int claims = 0;
  // One round trip per job (ack fused with the next claim), so a turn of 21
  // lanes stays well under the slow lane's 100 ms between tokens.
  JobPtr j = claim(c.get(), q, 60000);
  while (mono_ms() - t0 < 3000) {
    REQUIRE(j);
    const std::string g = echomq_job_group(j.get());
    ++served[g];
    if (g == "slow") slow_at.push_back(echomq_job_lease_until_ms(j.get()) - 60000);
    echomq_job *next = nullptr;
    EMQ_REQUIRE_OK(c.get(), echomq_ack_claim(c.get(), q.c_str(), echomq_job_id(j.get()),
                                             echomq_job_token(j.get()), 60000, &next));
    j.reset(next);
    if (++claims % 25 == 0) {
      // Never in the ring without a token.
      echomq_lane_info li = lane(c.get(), q, "slow");
      if (in_ring(raw, q, "slow")) CHECK(li.tokens >= 1.0);
      CHECK(li.rate_jobs == 10);
      CHECK(li.rate_period_ms == 1000);
    }
  }
  // The first burst (10 tokens) goes one per turn; then one job per 100 ms.
  REQUIRE(slow_at.size() >= 30);
  const double secs = (slow_at.back() - slow_at[10]) / 1000.0;
  INFO("slow lane: " << slow_at.size() << " jobs, the last " << slow_at.size() - 11 << " over " << secs
                     << " s; " << claims << " claims");
  const double rate = (slow_at.size() - 11) / secs;
  WARN("measured rate " << rate << " jobs/s");
  CHECK(rate >= 9.0);
  CHECK(rate <= 11.0);
  // Every other lane kept its share: the turns went round them evenly.
  int lo = 1 << 30, hi = 0;
  for (int l = 0; l < 20; ++l) {
    lo = std::min(lo, served["L" + std::to_string(l)]);
    hi = std::max(hi, served["L" + std::to_string(l)]);
  }
  CHECK(hi - lo <= 1);
  CHECK(lo > 4 * static_cast<int>(slow_at.size()));
  require_verified(c.get(), q);
}

TEST_CASE("a lane out of tokens leaves the ring and rejoins through claims alone", "[rate]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("rate-rejoin");
  fill(c.get(), q, "a", 10);
  fill(c.get(), q, "b", 10);
  EMQ_REQUIRE_OK(c.get(), echomq_set_rate(c.get(), q.c_str(), "a", 2, 400, 2));  // burst of 2
  JobPtr j1 = claim(c.get(), q, 60000), j2 = claim(c.get(), q, 60000), j3 = claim(c.get(), q, 60000);
  CHECK(std::string(echomq_job_group(j1.get())) == "a");
  CHECK(std::string(echomq_job_group(j3.get())) == "a");  // its second token
  CHECK_FALSE(in_ring(raw, q, "a"));
  echomq_lane_info li = lane(c.get(), q, "a");
  CHECK(li.serviceable == 0);
  CHECK(li.next_token_at_ms > 0);
  require_verified(c.get(), q);  // waiting for a token is not a violation
  for (int i = 0; i < 3; ++i) {
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    CHECK(std::string(echomq_job_group(j.get())) == "b");
  }
  sleep_ms(260);  // one token (200 ms each) is due
  bool back = false;
  for (int i = 0; i < 3 && !back; ++i) {
    JobPtr j = claim(c.get(), q, 60000);
    back = j && std::string(echomq_job_group(j.get())) == "a";
  }
  CHECK(back);
  require_verified(c.get(), q);
}

TEST_CASE("a job enqueued into a lane out of tokens waits outside the ring", "[rate]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("rate-enqueue");
  EMQ_REQUIRE_OK(c.get(), echomq_set_rate(c.get(), q.c_str(), "a", 1, 300, 1));
  enqueue(c.get(), q, "a", "first");
  JobPtr j = claim(c.get(), q, 60000);  // its one token
  REQUIRE(j);
  ack(c.get(), q, j.get());
  enqueue(c.get(), q, "a", "second");  // the lane is empty: it would join, but has no token
  CHECK_FALSE(in_ring(raw, q, "a"));
  require_verified(c.get(), q);
  CHECK(claim(c.get(), q, 60000) == nullptr);
  sleep_ms(350);
  JobPtr again = claim(c.get(), q, 60000);  // rejoined through the claim alone
  REQUIRE(again);
  CHECK(payload_of(again.get()) == "second");
  require_verified(c.get(), q);
}

TEST_CASE("a blocked claimer wakes when a throttled lane's token is due", "[rate]") {
  auto c = connect_client();
  const std::string q = fresh_queue("rate-wake");
  fill(c.get(), q, "a", 3);
  EMQ_REQUIRE_OK(c.get(), echomq_set_rate(c.get(), q.c_str(), "a", 1, 500, 1));
  JobPtr first = claim(c.get(), q, 60000);
  REQUIRE(first);
  const int64_t t0 = mono_ms();
  echomq_job *j = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_bclaim(c.get(), q.c_str(), 60000, 3000, &j));
  JobPtr next(j);
  const int64_t waited = mono_ms() - t0;
  CHECK(waited >= 350);
  CHECK(waited < 1200);
}

TEST_CASE("a hand-set throttle holds for its time and no longer", "[rate]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("throttle");
  fill(c.get(), q, "a", 5);
  fill(c.get(), q, "b", 1000);
  EMQ_REQUIRE_OK(c.get(), echomq_throttle(c.get(), q.c_str(), "a", 400));
  CHECK_FALSE(in_ring(raw, q, "a"));
  const int64_t t0 = mono_ms();
  int64_t first_a = -1;
  while (mono_ms() - t0 < 1500 && first_a < 0) {
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    if (std::string(echomq_job_group(j.get())) == "a") first_a = mono_ms() - t0;
    ack(c.get(), q, j.get());
    sleep_ms(5);
  }
  INFO("first job of the throttled lane after " << first_a << " ms");
  CHECK(first_a >= 380);
  CHECK(first_a < 700);
  CHECK(echomq_throttle(c.get(), q.c_str(), "a", 0) == ECHOMQ_EINVAL);
  require_verified(c.get(), q);
}

TEST_CASE("the size cap refuses exactly at the cap and writes nothing", "[cap]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("cap");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cap(c.get(), q.c_str(), "a", 3));
  for (int i = 0; i < 3; ++i) enqueue(c.get(), q, "a", "p");
  auto before = raw.queue_snapshot(q);
  uint64_t id = 0;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EFULL, echomq_enqueue(c.get(), q.c_str(), "a", "p", 1, nullptr, &id));
  CHECK(std::string(echomq_client_errmsg(c.get())).find("cap is 3") != std::string::npos);
  CHECK(raw.queue_snapshot(q) == before);
  // A batch with one full lane is refused whole.
  BatchPtr b(echomq_batch_create());
  REQUIRE(echomq_batch_add(b.get(), "b", "p", 1) == ECHOMQ_OK);
  REQUIRE(echomq_batch_add(b.get(), "a", "p", 1) == ECHOMQ_OK);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EFULL, echomq_enqueue_batch(c.get(), q.c_str(), b.get(), nullptr));
  CHECK(raw.queue_snapshot(q) == before);
  // Running jobs do not count: a claim makes room for one more.
  JobPtr j = claim(c.get(), q, 60000);
  enqueue(c.get(), q, "a", "p");
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EFULL, echomq_enqueue(c.get(), q.c_str(), "a", "p", 1, nullptr, &id));
  // The default applies to lanes without their own cap; clearing lifts it.
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_cap(c.get(), q.c_str(), 1));
  enqueue(c.get(), q, "c", "p");
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EFULL, echomq_enqueue(c.get(), q.c_str(), "c", "p", 1, nullptr, &id));
  echomq_lane_info li = lane(c.get(), q, "c");
  CHECK(li.cap == 1);
  CHECK(li.cap_is_default == 1);
  EMQ_REQUIRE_OK(c.get(), echomq_clear_cap(c.get(), q.c_str(), "a"));
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_cap(c.get(), q.c_str(), 0));
  enqueue(c.get(), q, "a", "p");
  enqueue(c.get(), q, "c", "p");
  require_verified(c.get(), q);
}

TEST_CASE("bad rate, throttle and cap settings are refused and write nothing", "[rate][cap]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("ratebad");
  enqueue(c.get(), q, "a", "p");
  auto before = raw.queue_snapshot(q);
  CHECK(echomq_set_rate(c.get(), q.c_str(), "a", 0, 1000, 0) == ECHOMQ_EINVAL);
  CHECK(echomq_set_rate(c.get(), q.c_str(), "a", 5, 0, 0) == ECHOMQ_EINVAL);
  CHECK(echomq_set_rate(c.get(), q.c_str(), "a", 5, -1, 0) == ECHOMQ_EINVAL);
  CHECK(echomq_set_rate(c.get(), q.c_str(), "a", 5, ECHOMQ_RATE_PERIOD_MAX_MS + 1, 0) == ECHOMQ_EINVAL);
  CHECK(echomq_set_rate(c.get(), q.c_str(), "a", ECHOMQ_RATE_JOBS_MAX + 1, 1000, 0) == ECHOMQ_EINVAL);
  CHECK(echomq_set_rate(c.get(), q.c_str(), "bad\x01", 5, 1000, 0) == ECHOMQ_EINVAL);
  CHECK(echomq_throttle(c.get(), q.c_str(), "a", -5) == ECHOMQ_EINVAL);
  CHECK(echomq_set_cap(c.get(), q.c_str(), "a", 0) == ECHOMQ_EINVAL);
  CHECK(echomq_set_cap(c.get(), q.c_str(), "a", ECHOMQ_CAP_MAX + 1ULL) == ECHOMQ_EINVAL);
  CHECK(raw.queue_snapshot(q) == before);
}

TEST_CASE("the ring stays fair among the other lanes while some are throttled", "[rate]") {
  auto c = connect_client();
  const std::string q = fresh_queue("rate-fair");
  for (int l = 0; l < 10; ++l) fill(c.get(), q, "L" + std::to_string(l), 30);
  EMQ_REQUIRE_OK(c.get(), echomq_set_rate(c.get(), q.c_str(), "L3", 1, 60000, 1));
  EMQ_REQUIRE_OK(c.get(), echomq_throttle(c.get(), q.c_str(), "L7", 60000));
  std::vector<std::string> order;
  for (int i = 0; i < 81; ++i) {
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    order.push_back(echomq_job_group(j.get()));
  }
  // L3 got its one token; L7 nothing; the other 8 lanes one job per turn.
  CHECK(std::count(order.begin(), order.end(), "L3") == 1);
  CHECK(std::count(order.begin(), order.end(), "L7") == 0);
  std::map<std::string, int> window;
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] == "L3") continue;
    ++window[order[i]];
  }
  for (auto &[g, n] : window) CHECK(n == 10);
  require_verified(c.get(), q);
}
