// Per-lane wait figures (docs/architecture.md, "Wait figures"): the wait
// from enqueue to first delivery as p50/p99 over the last one to two
// windows, in a bounded value per lane, and the served share against the
// fair share. Off by default, and then no key is written.
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <cmath>
#include <set>

using namespace emqtest;

namespace {

std::string gwait(const std::string &q) { return "emq:{" + q + "}:gwait"; }

// The fields of entry `g` in gwait ("g\t<window>..."), their bytes and the
// windows they belong to.
size_t entry_fields(RawValkey &raw, const std::string &q, const std::string &g, size_t *bytes = nullptr,
                    std::set<std::string> *windows = nullptr) {
  size_t n = 0, b = 0;
  std::string cursor = "0";
  do {
    ReplyPtr r = raw.must({"HSCAN", gwait(q), cursor, "MATCH", g + "\t*", "COUNT", "1000"});
    cursor = r->element[0]->str;
    for (size_t i = 0; i + 1 < r->element[1]->elements; i += 2) {
      ++n;
      b += r->element[1]->element[i]->len + r->element[1]->element[i + 1]->len;
      const std::string f = r->element[1]->element[i]->str;
      if (windows) windows->insert(f.substr(g.size() + 1, f.find('\t', g.size() + 1) - g.size() - 1));
    }
  } while (cursor != "0");
  if (bytes) *bytes = b;
  return n;
}

void fill(echomq_client *c, const std::string &q, const std::string &g, int n) {
  BatchPtr b(echomq_batch_create());
  for (int i = 0; i < n; ++i) REQUIRE(echomq_batch_add(b.get(), g.c_str(), "p", 1) == ECHOMQ_OK);
  EMQ_REQUIRE_OK(c, echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr));
}

void figures_on(echomq_client *c, const std::string &q, uint32_t window_s) {
  EMQ_REQUIRE_OK(c, echomq_set_wait_figures(c, q.c_str(), window_s));
  uint32_t got = 0;
  EMQ_REQUIRE_OK(c, echomq_get_wait_figures(c, q.c_str(), &got));
  REQUIRE(got == window_s);
}

}  // namespace

TEST_CASE("wait figures hold the bucket of the real wait to first delivery", "[waits]") {
  auto c = connect_client();
  const std::string q = fresh_queue("waits-real");
  figures_on(c.get(), q, 60);
  const int64_t before = mono_ms();
  enqueue(c.get(), q, "slow", "x");
  enqueue(c.get(), q, "quick", "x");
  JobPtr quick = claim(c.get(), q, 60000);  // the ring's first lane: "slow"
  REQUIRE(quick);
  REQUIRE(std::string(echomq_job_group(quick.get())) == "slow");
  ack(c.get(), q, quick.get());
  // "quick" waits a known time more.
  const int64_t kSleep = 300;
  sleep_ms(kSleep);
  JobPtr j = claim(c.get(), q, 60000);
  const int64_t elapsed = mono_ms() - before;
  REQUIRE(j);
  REQUIRE(std::string(echomq_job_group(j.get())) == "quick");
  echomq_lane_info l = lane(c.get(), q, "quick");
  REQUIRE(l.wait_samples == 1);
  // The figure is the upper edge u of the sqrt(2) bucket holding the wait w:
  // u / sqrt(2) <= w < u, and kSleep <= w <= elapsed (server ms: +-1).
  INFO("p50 " << l.wait_p50_ms << " elapsed " << elapsed);
  CHECK(l.wait_p50_ms > kSleep - 1);
  CHECK(l.wait_p50_ms / std::sqrt(2.0) <= elapsed + 1);
  CHECK(l.wait_p99_ms == l.wait_p50_ms);
  CHECK(l.window_claims == 1);
  echomq_lane_info s = lane(c.get(), q, "slow");
  REQUIRE(s.wait_samples == 1);
  CHECK(s.wait_p50_ms < kSleep);  // claimed at once
  CHECK(s.wait_p50_ms <= elapsed + 1);

  // A redelivery is a claim but not a first delivery: no new wait sample.
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), echomq_job_id(j.get()), echomq_job_token(j.get()),
                                      "again", 0, &outcome));
  JobPtr again = claim(c.get(), q, 60000);
  REQUIRE(again);
  REQUIRE(echomq_job_id(again.get()) == echomq_job_id(j.get()));
  l = lane(c.get(), q, "quick");
  CHECK(l.wait_samples == 1);
  CHECK(l.window_claims == 2);
  require_verified(c.get(), q);
}

TEST_CASE("wait figures: p50 and p99 split a lane's waits", "[waits]") {
  auto c = connect_client();
  const std::string q = fresh_queue("waits-split");
  figures_on(c.get(), q, 60);
  // 98 jobs claimed at once, 2 after a known sleep: p50 is quick, p99 slow.
  fill(c.get(), q, "a", 100);
  for (int i = 0; i < 98; ++i) REQUIRE(claim(c.get(), q, 60000));
  sleep_ms(400);
  for (int i = 0; i < 2; ++i) REQUIRE(claim(c.get(), q, 60000));
  echomq_lane_info l = lane(c.get(), q, "a");
  REQUIRE(l.wait_samples == 100);
  CHECK(l.wait_p50_ms < 400);
  CHECK(l.wait_p99_ms > 399);
}

TEST_CASE("wait figures: the window rolls and old samples leave", "[waits]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("waits-roll");
  figures_on(c.get(), q, 1);
  enqueue(c.get(), q, "old", "x");
  REQUIRE(claim(c.get(), q, 60000));
  echomq_lane_info l = lane(c.get(), q, "old");
  REQUIRE(l.wait_samples == 1);
  REQUIRE(l.window_claims == 1);
  REQUIRE(l.share == 1.0);
  // Two windows later the figures cover neither the sample nor the claim.
  sleep_ms(2100);
  l = lane(c.get(), q, "old");
  CHECK(l.wait_samples == 0);
  CHECK(l.window_claims == 0);
  CHECK(l.wait_p50_ms == -1);
  CHECK(l.share == -1);
  // The next claim's sweep drops the entry's fields themselves.
  REQUIRE(entry_fields(raw, q, "old") > 0);
  enqueue(c.get(), q, "new", "x");
  REQUIRE(claim(c.get(), q, 60000));
  CHECK(entry_fields(raw, q, "old") == 0);
  CHECK(entry_fields(raw, q, "new") > 0);
}

TEST_CASE("wait figures: a lane's value stays bounded however many claims", "[waits]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("waits-bound");
  figures_on(c.get(), q, 60);
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "a", 500));
  // Rounds of 500 jobs claimed as soon as they are in: waits of a few ms.
  auto round = [&] {
    fill(c.get(), q, "a", 500);
    JobListPtr l = wclaim(c.get(), q, 60000, 500);
    REQUIRE(l);
    REQUIRE(echomq_job_list_count(l.get()) == 500);
  };
  round();
  size_t early_bytes = 0, late_bytes = 0;
  std::set<std::string> early_w, late_w;
  const size_t early = entry_fields(raw, q, "a", &early_bytes, &early_w);
  for (int i = 0; i < 19; ++i) round();
  const size_t late = entry_fields(raw, q, "a", &late_bytes, &late_w);
  // A run that crosses into the next window holds that window's fields too.
  const size_t windows = late_w.size() - early_w.size() + 1;
  INFO("after 500 claims: " << early << " fields, " << early_bytes << " bytes; after 10000: " << late << ", "
                            << late_bytes);
  // Counts grow by digits, never by a field per claim: no lane passes the
  // layout's bound (two windows of its claims, weight, cost and 52
  // buckets), however the waits spread over the buckets (a loaded machine
  // opens more of them than a quiet one), and every field stays a short
  // name ("a\t<window>\t<bucket>") with a count of a few digits.
  CHECK(late >= early);
  CHECK(late <= 2 * (3 + 52));
  CHECK(late_bytes <= late * 32);
  CHECK(raw.integer({"HLEN", gwait(q)}) <= static_cast<long long>(late + 2 * windows + 1));  // + the queue's
  CHECK(lane(c.get(), q, "a").wait_samples == 10000);
}

TEST_CASE("wait figures: served share against fair share", "[waits]") {
  auto c = connect_client();
  SECTION("wclaim: weights 1 and 3") {
    const std::string q = fresh_queue("waits-wshare");
    figures_on(c.get(), q, 60);
    EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "b", 3));
    fill(c.get(), q, "a", 200);
    fill(c.get(), q, "b", 600);
    for (int i = 0; i < 100; ++i) REQUIRE(wclaim(c.get(), q, 60000, 100));
    echomq_lane_info a = lane(c.get(), q, "a"), b = lane(c.get(), q, "b");
    CHECK(a.window_claims == 50);
    CHECK(b.window_claims == 150);
    CHECK(std::fabs(a.share - 0.25) < 1e-6);
    CHECK(std::fabs(b.share - 0.75) < 1e-6);
    CHECK(std::fabs(a.fair_share - 0.25) < 1e-6);
    CHECK(std::fabs(b.fair_share - 0.75) < 1e-6);
  }
  SECTION("claim: a turn serves one job whatever the weight") {
    const std::string q = fresh_queue("waits-cshare");
    figures_on(c.get(), q, 60);
    EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "b", 3));
    fill(c.get(), q, "a", 50);
    fill(c.get(), q, "b", 50);
    for (int i = 0; i < 40; ++i) REQUIRE(claim(c.get(), q, 60000));
    echomq_lane_info a = lane(c.get(), q, "a"), b = lane(c.get(), q, "b");
    CHECK(std::fabs(a.share - 0.5) < 1e-6);
    CHECK(std::fabs(a.fair_share - 0.5) < 1e-6);
    CHECK(std::fabs(b.fair_share - 0.5) < 1e-6);
  }
  SECTION("tenant rows add up their lanes") {
    const std::string q = fresh_queue("waits-tenant");
    figures_on(c.get(), q, 60);
    fill(c.get(), q, "t/x", 10);
    fill(c.get(), q, "t/y", 10);
    fill(c.get(), q, "p", 10);
    for (int i = 0; i < 12; ++i) REQUIRE(claim(c.get(), q, 60000));
    echomq_lane_info t = lane(c.get(), q, "t/"), x = lane(c.get(), q, "t/x"), y = lane(c.get(), q, "t/y"),
                     p = lane(c.get(), q, "p");
    CHECK(t.is_tenant == 1);
    CHECK(std::string(t.tenant) == "t");
    CHECK(std::string(x.tenant) == "t");
    CHECK(x.is_tenant == 0);
    CHECK(std::string(p.tenant).empty());
    CHECK(t.window_claims == x.window_claims + y.window_claims);
    CHECK(t.wait_samples == x.wait_samples + y.wait_samples);
    CHECK(std::fabs(t.share - (x.share + y.share)) < 1e-5);
    // Two outer entries (p and t/) of weight 1; t's two lanes split its half.
    CHECK(std::fabs(p.fair_share - 0.5) < 1e-6);
    CHECK(std::fabs(t.fair_share - 0.5) < 1e-6);
    CHECK(std::fabs(x.fair_share - 0.25) < 1e-6);
  }
}

TEST_CASE("wait figures in cost mode: shares by cost, v and sitting out", "[waits][cost]") {
  auto c = connect_client();
  const std::string q = fresh_queue("waits-cost");
  figures_on(c.get(), q, 60);
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 1));
  fill(c.get(), q, "a", 3);
  fill(c.get(), q, "b", 3);
  JobPtr j1 = claim(c.get(), q, 60000), j2 = claim(c.get(), q, 60000);
  REQUIRE((j1 && j2));
  EMQ_REQUIRE_OK(c.get(), echomq_charge(c.get(), q.c_str(), "a", 30));
  EMQ_REQUIRE_OK(c.get(), echomq_charge(c.get(), q.c_str(), "b", 10));
  echomq_lane_info a = lane(c.get(), q, "a"), b = lane(c.get(), q, "b");
  CHECK(std::fabs(a.share - 0.75) < 1e-6);
  CHECK(std::fabs(b.share - 0.25) < 1e-6);
  CHECK(std::fabs(a.fair_share - 0.5) < 1e-6);
  CHECK(a.cost_v == 30);
  CHECK(b.cost_v == 10);
  CHECK(a.sits_out == 0);
  // a is 20 units past b with a quantum of 1: its next turn sets it aside.
  JobPtr j3 = claim(c.get(), q, 60000);
  REQUIRE(j3);
  CHECK(std::string(echomq_job_group(j3.get())) == "b");
  CHECK(lane(c.get(), q, "a").sits_out == 1);
  CHECK(lane(c.get(), q, "b").sits_out == 0);
}

TEST_CASE("wait figures are off by default and write nothing, and off drops them", "[waits]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("waits-off");
  uint32_t w = 7;
  EMQ_REQUIRE_OK(c.get(), echomq_get_wait_figures(c.get(), q.c_str(), &w));
  REQUIRE(w == 0);
  enqueue(c.get(), q, "a", "x");
  REQUIRE(claim(c.get(), q, 60000));
  CHECK(raw.integer({"EXISTS", gwait(q)}) == 0);
  echomq_lane_info l = lane(c.get(), q, "a");
  CHECK(l.wait_samples == 0);
  CHECK(l.wait_p50_ms == -1);
  CHECK(l.share == -1);
  CHECK(l.cost_v == -1);

  figures_on(c.get(), q, 30);
  enqueue(c.get(), q, "a", "x");
  REQUIRE(claim(c.get(), q, 60000));
  CHECK(raw.integer({"EXISTS", gwait(q)}) == 1);
  CHECK(lane(c.get(), q, "a").wait_samples == 1);
  // Another window length drops the figures so far (they would not add up).
  figures_on(c.get(), q, 31);
  CHECK(raw.integer({"EXISTS", gwait(q)}) == 0);
  enqueue(c.get(), q, "a", "x");
  REQUIRE(claim(c.get(), q, 60000));
  EMQ_REQUIRE_OK(c.get(), echomq_set_wait_figures(c.get(), q.c_str(), 0));
  CHECK(raw.integer({"EXISTS", gwait(q)}) == 0);
  EMQ_REQUIRE_OK(c.get(), echomq_get_wait_figures(c.get(), q.c_str(), &w));
  CHECK(w == 0);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_wait_figures(c.get(), q.c_str(), ECHOMQ_WAIT_WINDOW_MAX_S + 1));
}

TEST_CASE("wait figures: a gwait of the wrong type refuses the claim, nothing written", "[waits]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("waits-type");
  figures_on(c.get(), q, 60);
  enqueue(c.get(), q, "a", "x");
  raw.must({"SET", gwait(q), "corrupt"});
  const Keyspace before = raw.queue_snapshot(q);
  JobPtr none;
  echomq_job *j = nullptr;
  const int rc = echomq_claim(c.get(), q.c_str(), 60000, &j);
  none.reset(j);
  CHECK(rc == ECHOMQ_ESERVER);
  CHECK(keyspace_diff(before, raw.queue_snapshot(q)).empty());

  // A field that holds no number (written by hand) starts again: the claim
  // goes through whole.
  raw.must({"DEL", gwait(q)});
  REQUIRE(claim(c.get(), q, 60000));
  ReplyPtr r = raw.must({"HSCAN", gwait(q), "0", "MATCH", "a\t*", "COUNT", "1000"});
  REQUIRE(r->element[1]->elements >= 2);
  for (size_t i = 0; i < r->element[1]->elements; i += 2) raw.must({"HSET", gwait(q), r->element[1]->element[i]->str, "junk"});
  enqueue(c.get(), q, "a", "y");
  REQUIRE(claim(c.get(), q, 60000));
  CHECK(lane(c.get(), q, "a").window_claims == 1);
  require_verified(c.get(), q);
}
