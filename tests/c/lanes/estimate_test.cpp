// Cost estimates (docs/architecture.md, "Fairness by work"): an estimate
// given at enqueue is charged to the job's ring entry when the job is
// claimed, and a settlement that carries a charge for the lane refunds it,
// so the real cost replaces it. Checked on the charges themselves (gvt: the
// v of each entry, cost / weight) and on the service order they cause.
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <cstdlib>

using namespace emqtest;

namespace {

std::string key(const std::string &q, const std::string &name) { return "emq:{" + q + "}:" + name; }

// The v of ring entry g (cost charged / weight); -1 when it has none.
double v_of(RawValkey &raw, const std::string &q, const std::string &g) {
  ReplyPtr r = raw.must({"HGET", key(q, "gvt"), g});
  if (r->type != REDIS_REPLY_STRING) return -1;
  return std::strtod(std::string(r->str, r->len).c_str(), nullptr);
}

bool has_estimate(RawValkey &raw, const std::string &q, uint64_t id) {
  return raw.integer({"HEXISTS", key(q, "est"), std::to_string(id)}) == 1;
}

uint64_t enqueue_est(echomq_client *c, const std::string &q, const std::string &g, uint64_t est) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.cost_estimate = est;
  return enqueue(c, q, g, "p", &o);
}

// Settles `s` in one call, claiming nothing.
void settle(echomq_client *c, const std::string &q, echomq_settle *s) {
  echomq_job_list *none = nullptr;
  EMQ_REQUIRE_OK(c, echomq_settle_claim(c, q.c_str(), s, 60000, 0, 0, &none));
  CHECK(echomq_settle_status(s, 0) != ECHOMQ_EINVAL);
  echomq_job_list_free(none);
}

}  // namespace

TEST_CASE("an estimate is charged at the claim: its lane sits out while the others go on", "[cost][estimate]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("est-claim");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 10));
  for (int i = 0; i < 3; ++i) enqueue_est(c.get(), q, "big", 100);
  for (int i = 0; i < 6; ++i) enqueue(c.get(), q, "small", "p");
  JobPtr first = claim(c.get(), q, 60000);
  REQUIRE(first);
  CHECK(std::string(echomq_job_group(first.get())) == "big");
  CHECK(v_of(raw, q, "big") == 100);  // charged before any ack
  // 100 is past the floor (0) + quantum (10): big sits out, small goes on.
  for (int i = 0; i < 4; ++i) {
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    INFO("claim " << i + 2);
    CHECK(std::string(echomq_job_group(j.get())) == "small");
  }
  CHECK(raw.must({"ZSCORE", key(q, "gdebt"), "big"})->type == REDIS_REPLY_STRING);
  require_verified(c.get(), q);
}

TEST_CASE("a batch charges each turn's estimate before the next turn", "[cost][estimate][batch]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("est-batch");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 10));
  for (int i = 0; i < 3; ++i) enqueue_est(c.get(), q, "big", 100);
  for (int i = 0; i < 6; ++i) enqueue(c.get(), q, "small", "p");
  echomq_job_list *raw_list = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), q.c_str(), 60000, 5, 0, &raw_list));
  JobListPtr l(raw_list);
  REQUIRE(echomq_job_list_count(l.get()) == 5);
  CHECK(std::string(echomq_job_group(echomq_job_list_at(l.get(), 0))) == "big");
  for (size_t i = 1; i < 5; ++i) CHECK(std::string(echomq_job_group(echomq_job_list_at(l.get(), i))) == "small");
  CHECK(v_of(raw, q, "big") == 100);
  require_verified(c.get(), q);
}

TEST_CASE("an ack that carries a charge replaces the estimate, one without leaves it", "[cost][estimate]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("est-settle");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 1000));
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "a", 2));
  const uint64_t id = enqueue_est(c.get(), q, "a", 100);
  enqueue_est(c.get(), q, "b", 100);
  CHECK(has_estimate(raw, q, id));
  JobPtr ja = claim(c.get(), q, 60000);
  JobPtr jb = claim(c.get(), q, 60000);
  REQUIRE(ja);
  REQUIRE(jb);
  REQUIRE(echomq_job_id(ja.get()) == id);
  CHECK(v_of(raw, q, "a") == 50);  // 100 / weight 2
  CHECK(v_of(raw, q, "b") == 100);

  SettlePtr s(echomq_settle_create());
  REQUIRE(echomq_settle_ack_cost(s.get(), id, echomq_job_token(ja.get()), "a", 30) == ECHOMQ_OK);
  settle(c.get(), q, s.get());
  CHECK(echomq_settle_status(s.get(), 0) == ECHOMQ_OK);
  CHECK(v_of(raw, q, "a") == 15);  // 30 / 2: the real cost replaced the estimate
  CHECK_FALSE(has_estimate(raw, q, id));

  ack(c.get(), q, jb.get());  // no charge: the estimate stood in, and stays
  CHECK(v_of(raw, q, "b") == 100);
  CHECK(raw.integer({"EXISTS", key(q, "est")}) == 0);  // gone with the records
  require_verified(c.get(), q);
}

TEST_CASE("a failed job keeps its estimate, charged again at each claim, and a release refunds it", "[cost][estimate]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("est-retry");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 1000));
  const uint64_t id = enqueue_est(c.get(), q, "r", 40);
  JobPtr j = claim(c.get(), q, 60000);
  REQUIRE(j);
  CHECK(v_of(raw, q, "r") == 40);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "x", 0, nullptr));
  CHECK(has_estimate(raw, q, id));
  CHECK(v_of(raw, q, "r") == 40);  // a fail without a charge leaves it charged
  j = claim(c.get(), q, 60000);
  REQUIRE(j);
  CHECK(v_of(raw, q, "r") == 80);  // the second attempt is charged it again
  SettlePtr s(echomq_settle_create());
  REQUIRE(echomq_settle_fail(s.get(), id, echomq_job_token(j.get()), nullptr, ECHOMQ_RETRY_RELEASE) == ECHOMQ_OK);
  settle(c.get(), q, s.get());
  CHECK(v_of(raw, q, "r") == 40);  // given back unstarted: not charged
  CHECK(has_estimate(raw, q, id));
  EMQ_REQUIRE_OK(c.get(), echomq_delete_job(c.get(), q.c_str(), id));
  CHECK_FALSE(has_estimate(raw, q, id));  // it goes with its record
  require_verified(c.get(), q);
}

TEST_CASE("a tenant's lane charges its estimate to the tenant, by the tenant's weight", "[cost][estimate]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("est-tenant");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 1000));
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "t/", 4));
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_weight(c.get(), q.c_str(), 8));  // lanes only, never a tenant
  enqueue_est(c.get(), q, "t/x", 40);
  JobPtr j = claim(c.get(), q, 60000);
  REQUIRE(j);
  CHECK(v_of(raw, q, "t/") == 10);
  CHECK(v_of(raw, q, "t/x") == -1);
  require_verified(c.get(), q);
}

TEST_CASE("bad estimates are refused before any I/O, and outside cost mode none is kept", "[cost][estimate]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("est-bad");
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.cost_estimate = static_cast<uint64_t>(ECHOMQ_ID_MAX) + 1;
  uint64_t id = 0;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue(c.get(), q.c_str(), "g", "p", 1, &o, &id));
  BatchPtr b(echomq_batch_create());
  REQUIRE(echomq_batch_add(b.get(), "g", "p", 1) == ECHOMQ_OK);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue_batch(c.get(), q.c_str(), b.get(), &o));
  CHECK(raw.integer({"EXISTS", key(q, "seq"), key(q, "jobs"), key(q, "est"), key(q, "config")}) == 0);
  // A version-3 caller's struct has no estimate: the field is not read.
  echomq_enqueue_options v3;
  REQUIRE(echomq_enqueue_options_init(&v3, ECHOMQ_ENQUEUE_OPTIONS_VERSION_3) == ECHOMQ_OK);
  CHECK(v3.version == ECHOMQ_ENQUEUE_OPTIONS_VERSION_3);
  v3.cost_estimate = static_cast<uint64_t>(ECHOMQ_ID_MAX) + 1;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "g", "p", 1, &v3, &id));
  // Not in cost mode: checked and not kept.
  o.cost_estimate = ECHOMQ_ID_MAX;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "g", "p", 1, &o, &id));
  CHECK(raw.integer({"EXISTS", key(q, "est")}) == 0);
  // A wrong-typed est key refuses the enqueue whole (cost mode).
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 10));
  raw.must({"SET", key(q, "est"), "x"});
  auto seq = [&] {
    ReplyPtr r = raw.must({"GET", key(q, "seq")});
    return std::string(r->str, r->len);
  };
  const std::string before = seq();
  CHECK(echomq_enqueue(c.get(), q.c_str(), "g", "p", 1, &o, &id) == ECHOMQ_ESERVER);
  CHECK(seq() == before);  // no id minted: nothing written
}

TEST_CASE("a key or group named \"est\" is never read as the estimate marker", "[cost][estimate]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("est-names");
  EMQ_REQUIRE_OK(c.get(), echomq_set_cost_mode(c.get(), q.c_str(), 10));
  // Four keyed jobs: the third key "est", the fourth a number, as an
  // estimate after a retention would look.
  BatchPtr b(echomq_batch_create());
  const char *keys[] = {"k1", "k2", "est", "7"};
  for (const char *k : keys) REQUIRE(echomq_batch_add_keyed(b.get(), "est", "est", 3, k) == ECHOMQ_OK);
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), b.get(), nullptr));
  CHECK(raw.integer({"EXISTS", key(q, "est")}) == 0);
  for (size_t i = 0; i < 4; ++i) CHECK(echomq_batch_duplicate(b.get(), i) == 0);
  // With an estimate as well: each job gets it.
  BatchPtr b2(echomq_batch_create());
  const char *keys2[] = {"k5", "k6", "k7", "k8"};
  for (const char *k : keys2) REQUIRE(echomq_batch_add_keyed(b2.get(), "est", "est", 3, k) == ECHOMQ_OK);
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.cost_estimate = 5;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), b2.get(), &o));
  CHECK(raw.integer({"HLEN", key(q, "est")}) == 4);
  require_verified(c.get(), q);
}
