// No half writes on the lifecycle's paths (echomq/lifecycle.h): every key
// they may touch, clobbered with the wrong type, makes each call either
// work around it or be refused whole. As half_write_test.cpp, on a queue
// that uses every lifecycle feature: a canceled leased job, time limits,
// start deadlines (one passed), a queue-wide ceiling and rate, a bursting
// lane.
#include "test_env.hpp"

#include "raw_valkey.hpp"

#include <functional>
#include <sstream>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

struct Held {
  uint64_t id = 0, token = 0;  // leased, marked canceled
  uint64_t pending = 0;        // waiting in lane a
};

Held seed(echomq_client *c, const std::string &q) {
  EMQ_REQUIRE_OK(c, echomq_set_limit_burst(c, q.c_str(), "a", 1, 3));
  EMQ_REQUIRE_OK(c, echomq_set_queue_limit(c, q.c_str(), 50));
  EMQ_REQUIRE_OK(c, echomq_set_queue_rate(c, q.c_str(), 100, 1000, 0));
  EMQ_REQUIRE_OK(c, echomq_set_default_timeout(c, q.c_str(), 60000));
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.timeout_ms = 30000;
  o.ttl_ms = 3600000;
  Held h;
  h.id = enqueue(c, q, "a", "held", &o);
  JobPtr j = claim(c, q, kLease);
  REQUIRE(j);
  REQUIRE(echomq_job_id(j.get()) == h.id);
  h.token = echomq_job_token(j.get());
  EMQ_REQUIRE_OK(c, echomq_cancel(c, q.c_str(), h.id, "stop", 0, nullptr));
  for (int i = 0; i < 3; ++i) {
    const uint64_t id = enqueue(c, q, "a", "x", &o);
    if (i == 0) h.pending = id;
    enqueue(c, q, "b", "y", &o);
  }
  echomq_enqueue_options soon = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  soon.ttl_ms = 1;  // passed by the time a call runs
  enqueue(c, q, "b", "expires", &soon);
  sleep_ms(5);
  return h;
}

struct Call {
  const char *name;
  std::function<int(echomq_client *, const std::string &, const Held &)> run;
};

int claimOne(echomq_client *c, const std::string &q) {
  echomq_job *j = nullptr;
  const int rc = echomq_claim(c, q.c_str(), kLease, &j);
  echomq_job_free(j);
  return rc;
}

const std::vector<Call> &calls() {
  static const std::vector<Call> all = {
      {"cancel (waiting)", [](echomq_client *c, const std::string &q, const Held &h) {
         return echomq_cancel(c, q.c_str(), h.pending, nullptr, 0, nullptr);
       }},
      {"cancel (removed)", [](echomq_client *c, const std::string &q, const Held &h) {
         return echomq_cancel(c, q.c_str(), h.pending, nullptr, ECHOMQ_CANCEL_REMOVE, nullptr);
       }},
      {"ack (canceled while leased)", [](echomq_client *c, const std::string &q, const Held &h) {
         return echomq_ack(c, q.c_str(), h.id, h.token);
       }},
      {"extend (canceled, time limits)", [](echomq_client *c, const std::string &q, const Held &h) {
         return echomq_extend(c, q.c_str(), h.id, h.token, kLease, nullptr);
       }},
      {"claim (deadlines, ceiling, bursts)", [](echomq_client *c, const std::string &q, const Held &) {
         return claimOne(c, q);
       }},
      {"claim (a batch across both rings)", [](echomq_client *c, const std::string &q, const Held &) {
         echomq_job_list *l = nullptr;
         const int rc = echomq_claim_batch(c, q.c_str(), kLease, 10, 0, &l);
         echomq_job_list_free(l);
         return rc;
       }},
      {"enqueue (time limit, deadline)", [](echomq_client *c, const std::string &q, const Held &) {
         echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
         o.timeout_ms = 1000;
         o.ttl_ms = 60000;
         o.expire_flags = ECHOMQ_EXPIRE_DROP;
         return echomq_enqueue(c, q.c_str(), "a", "new", 3, &o, nullptr);
       }},
      {"burst", [](echomq_client *c, const std::string &q, const Held &) {
         return echomq_set_limit_burst(c, q.c_str(), "b", 1, 2);
       }},
      {"limit (clears a burst)", [](echomq_client *c, const std::string &q, const Held &) {
         return echomq_clear_limit(c, q.c_str(), "a");
       }},
      {"queue limit", [](echomq_client *c, const std::string &q, const Held &) {
         return echomq_set_queue_limit(c, q.c_str(), 0);
       }},
      {"default timeout", [](echomq_client *c, const std::string &q, const Held &) {
         return echomq_set_default_timeout(c, q.c_str(), 0);
       }},
      {"repair", [](echomq_client *c, const std::string &q, const Held &) {
         echomq_report *r = nullptr;
         const int rc = echomq_repair(c, q.c_str(), 1, nullptr, 1000, &r);
         echomq_report_free(r);
         return rc;
       }},
  };
  return all;
}

const std::vector<std::string> &clobbered() {
  static const std::vector<std::string> keys = {
      "cancels", "tmo", "expiry", "xdrop", "qlimit", "gburst", "bring", "notice",
      "dead",    "stats", "att",  "leases", "ring",  "wake",  "config", "g:a:pending", "g:b:pending",
  };
  return keys;
}

}  // namespace

TEST_CASE("a lifecycle call refused part-way by a wrong-typed key changes nothing", "[half_write]") {
  RawValkey raw;
  auto c = connect_client();
  std::ostringstream detail;
  int refused = 0, halves = 0;
  for (const std::string &suffix : clobbered()) {
    for (const Call &call : calls()) {
      const std::string q = fresh_queue("halflife");
      const Held h = seed(c.get(), q);
      const std::string key = "emq:{" + q + "}:" + suffix;
      raw.must({"DEL", key});
      raw.must({"SET", key, "clobbered"});
      const Keyspace before = raw.queue_snapshot(q);
      const int rc = call.run(c.get(), q, h);
      if (rc >= 0) continue;  // the key was not in its way
      ++refused;
      INFO(call.name << " with " << suffix << " clobbered -> " << describe(c.get(), rc));
      CHECK(rc == ECHOMQ_ESERVER);  // WRONGTYPE
      const std::string diff = keyspace_diff(before, raw.queue_snapshot(q));
      if (diff.empty()) continue;
      ++halves;
      detail << "\n- " << call.name << " :" << suffix << " (" << echomq_client_errmsg(c.get()) << ") wrote:\n"
             << diff;
    }
  }
  INFO("half writes:" << detail.str());
  CHECK(halves == 0);
  CHECK(refused > 20);  // the planted keys did get in the way
}
