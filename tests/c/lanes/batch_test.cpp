// Batched claims serve exactly what as many single claims would: from two
// queues brought to identical states by the same random operations, n
// claims on one and a batch of n on the other give the same (id, lane,
// attempt) sequence and leave the same ring; a weighted batch gives the whole
// turns of successive wclaims that fit in n. Tokens carry the low bits of
// the call's random nonce: the batch's all carry one call's. Then fused
// settlement.
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <sstream>

using namespace emqtest;

namespace {

struct Served {
  uint64_t id;
  std::string lane;
  uint64_t attempt;
  uint64_t token;
  // Tokens differ between two runs by design: the service is what is equal.
  bool operator==(const Served &o) const { return id == o.id && lane == o.lane && attempt == o.attempt; }
};

std::string show(const std::vector<Served> &v) {
  std::ostringstream s;
  for (const Served &x : v) s << x.id << "/" << x.lane << "/" << x.attempt << " ";
  return s.str();
}

// The nonce bits of a token: token = tick * ECHOMQ_TOKEN_SPREAD + nonce bits
// (docs/architecture.md, "Fencing tokens").
uint64_t nonce_of(const Served &x) { return x.token % ECHOMQ_TOKEN_SPREAD; }

// Short leases and delays: long enough not to end while a state is built
// (which would make the two copies differ, also on a loaded machine), over
// before the claims run.
constexpr int64_t kShort = 400;
// Each short deadline of a state is kStep later than the one made before it
// (plus up to 49 ms at random): the deadlines keep the order they were made
// in whatever the machine's load, so the two copies recover their expired
// work in the same order (a lease a few ms shorter could otherwise end
// before one made earlier in one copy and after it in the other).
constexpr int64_t kStep = 60;
int64_t g_latest = 0;  // the latest short deadline made, past kShort

// Applies one seed's random history to queue q: lanes, weights, limits,
// pauses, some jobs leased with a short lease (they expire), some failed
// with a short delay (they fall due), some acked.
// Half the seeds (1, 2, 5, 6, ...: claims and wclaims) put the lanes in three tenants ("t<k>/L<l>"):
// the two rings, with the tenants' own weights, limits and pauses.
bool tenanted(unsigned seed) { return seed % 4 == 1 || seed % 4 == 2; }
std::string lane_name(unsigned seed, int l) {
  return (tenanted(seed) ? "t" + std::to_string(l % 3) + "/L" : std::string("L")) + std::to_string(l);
}

void build_state(echomq_client *c, const std::string &q, unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  int64_t step = 0;
  auto soon = [&](int64_t jitter) {
    const int64_t d = kStep * step++ + jitter;
    g_latest = std::max(g_latest, d);
    return kShort + d;
  };
  const int lanes = 2 + pick(7);
  for (int i = 0, n = 5 + pick(40); i < n; ++i)
    enqueue(c, q, lane_name(seed, pick(lanes)), "p" + std::to_string(i));
  if (tenanted(seed)) {  // their own random stream: the rest of the history stays what it was
    std::mt19937 trng(seed * 104729u);
    for (int t = 0; t < 3; ++t) {
      const std::string te = "t" + std::to_string(t) + "/";
      if (trng() % 2 == 0) EMQ_REQUIRE_OK(c, echomq_set_weight(c, q.c_str(), te.c_str(), 1 + trng() % 5));
      if (trng() % 3 == 0) EMQ_REQUIRE_OK(c, echomq_set_limit(c, q.c_str(), te.c_str(), 1 + trng() % 4));
      if (trng() % 8 == 0) EMQ_REQUIRE_OK(c, echomq_pause(c, q.c_str(), te.c_str()));
    }
  }
  for (int l = 0; l < lanes; ++l) {
    const std::string g = lane_name(seed, l);
    if (pick(3) == 0) EMQ_REQUIRE_OK(c, echomq_set_weight(c, q.c_str(), g.c_str(), 1 + pick(4)));
    if (pick(4) == 0) EMQ_REQUIRE_OK(c, echomq_set_limit(c, q.c_str(), g.c_str(), 1 + pick(3)));
    if (pick(6) == 0) EMQ_REQUIRE_OK(c, echomq_pause(c, q.c_str(), g.c_str()));
  }
  // Every third seed: cost mode, with lanes charged apart, so that turns
  // set lanes aside (gdebt) and the floor moves while the claims run.
  // Their own random stream: the rest of the history stays what it was.
  if (seed % 3 == 0) {
    std::mt19937 crng(seed * 7919u);
    EMQ_REQUIRE_OK(c, echomq_set_cost_mode(c, q.c_str(), 1 + crng() % 8));
    for (int l = 0; l < lanes; ++l)
      EMQ_REQUIRE_OK(c, echomq_charge(c, q.c_str(), lane_name(seed, l).c_str(), crng() % 30));
    // Jobs with cost estimates: each turn that serves one charges its
    // entry at once, so later turns of a batch see it as later claims do.
    echomq_enqueue_options eo = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    for (int i = 0, n = 3 + static_cast<int>(crng() % 12); i < n; ++i) {
      eo.cost_estimate = 1 + crng() % 25;
      enqueue(c, q, lane_name(seed, static_cast<int>(crng() % static_cast<unsigned>(lanes))), "e", &eo);
    }
  }
  // Deliveries that end in the past: expired leases and short retries.
  for (int i = 0, n = pick(6); i < n; ++i) {
    JobPtr j = claim(c, q, soon(pick(50)));
    if (!j) break;
    if (pick(2) == 0) {
      EMQ_REQUIRE_OK(c, echomq_fail(c, q.c_str(), echomq_job_id(j.get()), echomq_job_token(j.get()),
                                    "x", soon(pick(50)), nullptr));
    } else if (pick(3) == 0) {
      ack(c, q, j.get());
    }
  }
  for (int i = 0, n = pick(5); i < n; ++i) {  // held for the whole test
    JobPtr j = claim(c, q, 60000);
    if (!j) break;
  }
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  const int jitter = pick(50);
  for (int i = 0, n = pick(4); i < n; ++i) {
    o.delay_ms = soon(jitter);
    enqueue(c, q, lane_name(seed, pick(lanes)), "d", &o);
  }
}

std::vector<std::string> ring_of(RawValkey &raw, const std::string &q, const char *key = "ring") {
  std::vector<std::string> out;
  ReplyPtr r = raw.must({"LRANGE", "emq:{" + q + "}:" + key, "0", "-1"});
  for (size_t i = 0; i < r->elements; ++i) out.emplace_back(r->element[i]->str, r->element[i]->len);
  return out;
}

void add(std::vector<Served> &v, const echomq_job *j) {
  v.push_back({echomq_job_id(j), echomq_job_group(j), echomq_job_attempt(j), echomq_job_token(j)});
}

}  // namespace

TEST_CASE("a batch of n serves what n claims serve, across many random states", "[batch]") {
  auto c = connect_client();
  RawValkey raw;
  constexpr unsigned kSeeds = 60;
  std::vector<std::string> qas, qbs;
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    qas.push_back(fresh_queue("batch-single"));
    qbs.push_back(fresh_queue("batch-one-call"));
    build_state(c.get(), qas.back(), seed);
    build_state(c.get(), qbs.back(), seed);
  }
  sleep_ms(kShort + g_latest + 100);  // short leases expire, short delays fall due
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    const bool weighted = seed % 2 == 0;
    const std::string &qa = qas[seed - 1], &qb = qbs[seed - 1];
    const uint32_t n = 1 + seed % 23;
    std::vector<Served> singles, batch;
    std::ostringstream before;  // the state both start from, shown on a failure
    for (const std::string &x : ring_of(raw, qa)) before << x << " ";
    before << "| debt:";
    for (const char *k : {"gdebt"}) {
      ReplyPtr r = raw.must({"ZRANGE", "emq:{" + qa + "}:" + k, "0", "-1", "WITHSCORES"});
      for (size_t i = 0; i < r->elements; ++i) before << " " << std::string(r->element[i]->str, r->element[i]->len);
    }
    for (const std::string &qq : {qa, qb})
      for (const char *k : {"delayed", "leases"}) {
        ReplyPtr r = raw.must({"ZRANGE", "emq:{" + qq + "}:" + k, "0", "-1", "WITHSCORES"});
        before << " | " << k << ":";
        for (size_t i = 0; i + 1 < r->elements; i += 2)
          if (r->element[i]->str[0] != '~') before << " " << std::string(r->element[i]->str, r->element[i]->len) << "@" << std::string(r->element[i+1]->str, r->element[i+1]->len);
      }
    for (const char *k : {"gvt", "glimit", "gactive", "gweight"}) {
      before << " | " << k << ":";
      ReplyPtr gv = raw.must({"HGETALL", "emq:{" + qa + "}:" + k});
      for (size_t i = 0; i < gv->elements; ++i)
        if (gv->element[i]->len < 40) before << " " << std::string(gv->element[i]->str, gv->element[i]->len);
    }
    for (int t = 0; tenanted(seed) && t < 3; ++t) {
      before << " | t" << t << ":";
      for (const std::string &x : ring_of(raw, qa, ("t:t" + std::to_string(t) + ":ring").c_str())) before << " " << x;
    }
    if (weighted) {
      // Whole turns: the turns of successive wclaims while they fit in n
      // (a turn that would pass n waits for the next batch; the first is cut to n).
      while (singles.size() < n) {
        JobListPtr l = wclaim(c.get(), qa, 60000, ECHOMQ_WCLAIM_MAX);
        if (!l) break;
        const size_t k = echomq_job_list_count(l.get());
        if (!singles.empty() && singles.size() + k > n) break;
        for (size_t i = 0; i < k && singles.size() < n; ++i) add(singles, echomq_job_list_at(l.get(), i));
      }
    } else {
      while (singles.size() < n) {
        JobPtr j = claim(c.get(), qa, 60000);
        if (!j) break;
        add(singles, j.get());
      }
    }
    echomq_job_list *raw_list = nullptr;
    const int rc = echomq_claim_batch(c.get(), qb.c_str(), 60000, n, weighted ? 1 : 0, &raw_list);
    JobListPtr l(raw_list);
    INFO("seed " << seed << (weighted ? " weighted" : "") << ", n " << n);
    if (singles.empty()) {
      EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EMPTY, rc);
    } else {
      EMQ_REQUIRE_OK(c.get(), rc);
      for (size_t i = 0; i < echomq_job_list_count(l.get()); ++i) add(batch, echomq_job_list_at(l.get(), i));
    }
    INFO("ring before: " << before.str());
    INFO("singles: " << show(singles));
    INFO("batch:   " << show(batch));
    REQUIRE(singles == batch);
    for (size_t i = 0; i < batch.size(); ++i) {
      CHECK(nonce_of(batch[i]) == nonce_of(batch[0]));  // one call, one nonce
    }
    if (!weighted) {
      CHECK(ring_of(raw, qa) == ring_of(raw, qb));
      for (int t = 0; tenanted(seed) && t < 3; ++t) {  // and each tenant's inner ring
        const std::string inner = "t:t" + std::to_string(t) + ":ring";
        CHECK(ring_of(raw, qa, inner.c_str()) == ring_of(raw, qb, inner.c_str()));
      }
    }
    if (seed % 3 == 0) {  // the lanes set aside, the same in both
      auto debt = [&](const std::string &q) {
        std::vector<std::string> out;
        ReplyPtr r = raw.must({"ZRANGE", "emq:{" + q + "}:gdebt", "0", "-1", "WITHSCORES"});
        for (size_t i = 0; i < r->elements; ++i) out.emplace_back(r->element[i]->str, r->element[i]->len);
        return out;
      };
      CHECK(debt(qa) == debt(qb));
      // and every entry's charge (estimates included) and the floor (a
      // weighted run's singles took one wclaim more: its state differs)
      auto charges = [&](const std::string &q) {
        std::map<std::string, std::string> out;
        ReplyPtr r = raw.must({"HGETALL", "emq:{" + q + "}:gvt"});
        for (size_t i = 0; i + 1 < r->elements; i += 2)
          out[std::string(r->element[i]->str, r->element[i]->len)] =
              std::string(r->element[i + 1]->str, r->element[i + 1]->len);
        return out;
      };
      if (!weighted) CHECK(charges(qa) == charges(qb));
    }
    require_verified(c.get(), qa);
    require_verified(c.get(), qb);
  }
}

TEST_CASE("settle_claim acks and fails held jobs and claims the next batch in one call", "[batch]") {
  auto c = connect_client();
  const std::string q = fresh_queue("settle");
  for (int i = 0; i < 12; ++i) enqueue(c.get(), q, "L" + std::to_string(i % 4), "p");
  echomq_job_list *first = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), q.c_str(), 60000, 4, 0, &first));
  JobListPtr held(first);
  REQUIRE(echomq_job_list_count(held.get()) == 4);
  echomq_settle *s = nullptr;
  REQUIRE(echomq_settle_new(&s) == ECHOMQ_OK);
  SettlePtr own(s);
  const echomq_job *j0 = echomq_job_list_at(held.get(), 0), *j1 = echomq_job_list_at(held.get(), 1),
                   *j2 = echomq_job_list_at(held.get(), 2);
  REQUIRE(echomq_settle_ack(s, echomq_job_id(j0), echomq_job_token(j0)) == ECHOMQ_OK);
  REQUIRE(echomq_settle_fail(s, echomq_job_id(j1), echomq_job_token(j1), "boom", 0) == ECHOMQ_OK);
  REQUIRE(echomq_settle_fail(s, echomq_job_id(j2), echomq_job_token(j2), "never", ECHOMQ_RETRY_DEAD) ==
          ECHOMQ_OK);
  REQUIRE(echomq_settle_ack(s, echomq_job_id(j0), echomq_job_token(j0)) == ECHOMQ_OK);  // twice
  REQUIRE(echomq_settle_ack(s, 999999, 1) == ECHOMQ_OK);                               // unknown
  REQUIRE(echomq_settle_ack(s, 0, 1) == ECHOMQ_EINVAL);
  REQUIRE(echomq_settle_fail(s, 5, 1, "x", -7) == ECHOMQ_EINVAL);
  REQUIRE(echomq_settle_count(s) == 5);
  echomq_job_list *next = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_settle_claim(c.get(), q.c_str(), s, 60000, 3, 0, &next));
  JobListPtr got(next);
  CHECK(echomq_settle_status(s, 0) == ECHOMQ_OK);
  CHECK(echomq_settle_status(s, 1) == ECHOMQ_FAIL_RETRY);
  CHECK(echomq_settle_status(s, 2) == ECHOMQ_FAIL_DEAD);
  CHECK(echomq_settle_status(s, 3) == ECHOMQ_ESTALE);
  CHECK(echomq_settle_status(s, 4) == ECHOMQ_ENOTFOUND);
  CHECK(echomq_settle_status(s, 5) == ECHOMQ_EINVAL);
  REQUIRE(echomq_job_list_count(got.get()) == 3);
  echomq_queue_stats st = stats(c.get(), q);
  CHECK(st.acked_total == 1);
  CHECK(st.dead == 1);
  CHECK(st.leased == 4);  // j3 and the three just claimed
  CHECK(st.pending == 6);
  // The failed job is back in its lane with its reason, and a later turn serves it.
  bool saw_retry = false;
  auto look = [&](const echomq_job *j) {
    if (echomq_job_id(j) != echomq_job_id(j1)) return;
    saw_retry = true;
    CHECK(echomq_job_attempt(j) == echomq_job_attempt(j1) + 1);
    CHECK(echomq_job_token(j) != echomq_job_token(j1));
    CHECK(std::string(echomq_job_last_error(j)) == "boom");
  };
  for (size_t i = 0; i < echomq_job_list_count(got.get()); ++i) look(echomq_job_list_at(got.get(), i));
  while (JobPtr j = claim(c.get(), q, 60000)) look(j.get());
  CHECK(saw_retry);
  require_verified(c.get(), q);
}

TEST_CASE("a released job goes back to its lane at once without using an attempt", "[batch]") {
  auto c = connect_client();
  const std::string q = fresh_queue("release");
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.max_attempts = 1;
  const uint64_t id = enqueue(c.get(), q, "a", "p", &o);
  enqueue(c.get(), q, "a", "later");
  for (int round = 0; round < 3; ++round) {
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    REQUIRE(echomq_job_id(j.get()) == id);  // same mint position every time
    echomq_settle *s = echomq_settle_create();
    SettlePtr own(s);
    REQUIRE(echomq_settle_fail(s, id, echomq_job_token(j.get()), "", ECHOMQ_RETRY_RELEASE) == ECHOMQ_OK);
    EMQ_REQUIRE_OK(c.get(), echomq_settle_claim(c.get(), q.c_str(), s, 0, 0, 0, nullptr));
    CHECK(echomq_settle_status(s, 0) == ECHOMQ_FAIL_RETRY);
  }
  // Its one real attempt is still there: a fail now dead-letters it.
  JobPtr j = claim(c.get(), q, 60000);
  REQUIRE(echomq_job_id(j.get()) == id);
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "r", 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_DEAD);
  require_verified(c.get(), q);
}

TEST_CASE("extend_many moves every held lease and refuses stale ones", "[batch]") {
  auto c = connect_client();
  const std::string q = fresh_queue("extend-many");
  for (int i = 0; i < 3; ++i) enqueue(c.get(), q, "L" + std::to_string(i), "p");
  echomq_job_list *raw_list = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), q.c_str(), 1000, 3, 0, &raw_list));
  JobListPtr l(raw_list);
  uint64_t ids[3], toks[3];
  for (size_t i = 0; i < 3; ++i) {
    ids[i] = echomq_job_id(echomq_job_list_at(l.get(), i));
    toks[i] = echomq_job_token(echomq_job_list_at(l.get(), i));
  }
  toks[2] += 1;  // not its token
  int st[3] = {9, 9, 9};
  int64_t until = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_extend_many(c.get(), q.c_str(), ids, toks, 3, 60000, st, &until));
  CHECK(st[0] == ECHOMQ_OK);
  CHECK(st[1] == ECHOMQ_OK);
  CHECK(st[2] == ECHOMQ_ESTALE);
  CHECK(until > echomq_job_lease_until_ms(echomq_job_list_at(l.get(), 0)));
  sleep_ms(1100);  // the third lease expires; the extended two do not
  CHECK(claim(c.get(), q, 60000) != nullptr);
  CHECK(stats(c.get(), q).leased == 3);
  require_verified(c.get(), q);
}
