// echomq_verify must be able to fail: corrupt a healthy queue through a raw
// connection and check that each corruption is reported, then repair it.
// Key names: docs/keys.md (emq:{q}:ring, gactive, delayed, g:<g>:pending).
#include "test_env.hpp"

#include "raw_valkey.hpp"

#include <algorithm>

using namespace emqtest;

namespace {

constexpr int64_t kLongLease = 60000;

/// A queue with work in every state: pending in two lanes, leased, delayed, dead.
struct HealthyQueue {
  ClientPtr c = connect_client();
  std::string q = fresh_queue("verify");
  JobPtr leased;
  uint64_t pending_id = 0;

  HealthyQueue() {
    echomq_enqueue_options once = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    once.max_attempts = 1;
    const uint64_t dies = enqueue(c.get(), q, "dying", "d", &once);
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    REQUIRE(echomq_job_id(job.get()) == dies);
    EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), dies, echomq_job_token(job.get()), "x", 0, nullptr));
    enqueue(c.get(), q, "a", "a1");
    pending_id = enqueue(c.get(), q, "a", "a2");
    enqueue(c.get(), q, "b", "b1");
    echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    later.delay_ms = 60000;
    enqueue(c.get(), q, "b", "later", &later);
    leased = claim(c.get(), q, kLongLease);  // a1
    REQUIRE(leased);
    REQUIRE(payload_of(leased.get()) == "a1");
  }
  std::string key(const std::string &suffix) const { return "emq:{" + q + "}:" + suffix; }
};

/// The raw report handle: its accessors behave at the edges too.
void check_report_edges(echomq_client *c, const std::string &q) {
  echomq_report *raw = nullptr;
  EMQ_REQUIRE_OK(c, echomq_verify(c, q.c_str(), &raw));
  ReportPtr report(raw);
  const size_t n = echomq_report_count(report.get());
  CHECK(n >= 1);
  CHECK(echomq_report_at(report.get(), n) == nullptr);
}

void require_reported(const std::vector<std::string> &lines, const char *what) {
  INFO("verify after " << what << " reported nothing");
  REQUIRE_FALSE(lines.empty());
  for (const auto &line : lines) CHECK_FALSE(line.empty());
}

}  // namespace

TEST_CASE("verify reports a bogus lane in the ring", "[verify]") {
  HealthyQueue h;
  RawValkey raw;
  require_verified(h.c.get(), h.q);
  raw.must({"LPUSH", h.key("ring"), "no-such-lane"});
  require_reported(violations(h.c.get(), h.q), "LPUSH of a bogus lane");
  check_report_edges(h.c.get(), h.q);
  raw.must({"LREM", h.key("ring"), "0", "no-such-lane"});
  require_verified(h.c.get(), h.q);
}

TEST_CASE("verify reports a lane twice in the ring and a serviceable lane missing", "[verify]") {
  HealthyQueue h;
  RawValkey raw;
  raw.must({"RPUSH", h.key("ring"), "b"});
  require_reported(violations(h.c.get(), h.q), "a duplicate ring entry");
  raw.must({"LREM", h.key("ring"), "0", "b"});  // now b is missing altogether
  require_reported(violations(h.c.get(), h.q), "removing a serviceable lane");
  raw.must({"RPUSH", h.key("ring"), "b"});
  require_verified(h.c.get(), h.q);
}

TEST_CASE("verify reports a wrong gactive count", "[verify]") {
  HealthyQueue h;
  RawValkey raw;
  ReplyPtr old = raw.must({"HGET", h.key("gactive"), "a"});
  REQUIRE(old->type == REDIS_REPLY_STRING);
  const std::string saved(old->str, old->len);
  REQUIRE(saved == "1");
  raw.must({"HSET", h.key("gactive"), "a", "5"});
  require_reported(violations(h.c.get(), h.q), "HSET gactive a 5");
  raw.must({"HSET", h.key("gactive"), "a", saved});
  require_verified(h.c.get(), h.q);
}

TEST_CASE("verify reports a job in two places", "[verify]") {
  HealthyQueue h;
  RawValkey raw;
  const std::string id = std::to_string(h.pending_id);
  raw.must({"ZADD", h.key("delayed"), "99999999999999", id});
  require_reported(violations(h.c.get(), h.q), "a pending job also in the delayed set");
  raw.must({"ZREM", h.key("delayed"), id});
  require_verified(h.c.get(), h.q);

  raw.must({"ZADD", h.key("leases"), "99999999999999", id});
  require_reported(violations(h.c.get(), h.q), "a pending job also in the leases");
  raw.must({"ZREM", h.key("leases"), id});
  require_verified(h.c.get(), h.q);
}

TEST_CASE("verify reports a job that vanished from its lane", "[verify]") {
  HealthyQueue h;
  RawValkey raw;
  const std::string id = std::to_string(h.pending_id);
  const std::string pending = h.key("g:a:pending");
  REQUIRE(raw.integer({"ZREM", pending, id}) == 1);
  require_reported(violations(h.c.get(), h.q), "ZREM of a pending job");
  raw.must({"ZADD", pending, id, id});
  require_verified(h.c.get(), h.q);
}

TEST_CASE("verify of a healthy queue in every state is clean", "[verify]") {
  HealthyQueue h;
  echomq_queue_stats s = stats(h.c.get(), h.q);
  CHECK(s.pending == 2);
  CHECK(s.leased == 1);
  CHECK(s.delayed == 1);
  CHECK(s.dead == 1);
  require_verified(h.c.get(), h.q);
  ack(h.c.get(), h.q, h.leased.get());
  require_verified(h.c.get(), h.q);
}

TEST_CASE("verify reports a counter that drifted", "[verify]") {
  HealthyQueue h;
  RawValkey raw;
  raw.must({"HINCRBY", h.key("stats"), "enqueued", "3"});
  require_reported(violations(h.c.get(), h.q), "HINCRBY stats enqueued 3");
  raw.must({"HINCRBY", h.key("stats"), "enqueued", "-3"});
  require_verified(h.c.get(), h.q);
}

TEST_CASE("verify reports a leased job whose record is gone", "[verify]") {
  HealthyQueue h;
  RawValkey raw;
  const std::string id = std::to_string(echomq_job_id(h.leased.get()));
  ReplyPtr rec = raw.must({"HGET", h.key("jobs"), id});
  REQUIRE(rec->type == REDIS_REPLY_STRING);
  const std::string saved(rec->str, rec->len);
  REQUIRE(raw.integer({"HDEL", h.key("jobs"), id}) == 1);
  require_reported(violations(h.c.get(), h.q), "HDEL of a leased job's record");
  raw.must({"HSET", h.key("jobs"), id, saved});
  require_verified(h.c.get(), h.q);
}

TEST_CASE("a claim of a job whose record is malformed reports EPROTO and leaves it leased, never lost",
          "[verify]") {
  HealthyQueue h;
  RawValkey raw;
  const std::string id = std::to_string(h.pending_id);
  raw.must({"HSET", h.key("jobs"), id, "12 1 3 not a record"});
  // The next turns serve b1, then a2: the call leases both, and its reply
  // cannot be read.
  echomq_job_list *list = nullptr;
  EMQ_REQUIRE_STATUS(h.c.get(), ECHOMQ_EPROTO, echomq_claim_batch(h.c.get(), h.q.c_str(), kLongLease, 5, 0, &list));
  CHECK(list == nullptr);
  CHECK(std::string(echomq_client_errmsg(h.c.get())).find("job record") != std::string::npos);
  CHECK(stats(h.c.get(), h.q).leased == 3);  // a1, b1 and a2: back by their leases
}

TEST_CASE("an ack of a job whose delivery state is malformed is refused as stale and changes nothing",
          "[verify]") {
  HealthyQueue h;
  RawValkey raw;
  const uint64_t id = echomq_job_id(h.leased.get()), token = echomq_job_token(h.leased.get());
  const std::string field = std::to_string(id);
  // The right token, then nothing an ack can read its lane from.
  raw.must({"HSET", h.key("att"), field, std::to_string(token) + " "});
  const echomq_queue_stats before = stats(h.c.get(), h.q);
  CHECK(echomq_ack(h.c.get(), h.q.c_str(), id, token) == ECHOMQ_ESTALE);
  const echomq_queue_stats after = stats(h.c.get(), h.q);
  CHECK(after.leased == before.leased);
  CHECK(after.acked_total == before.acked_total);
  CHECK(raw.must({"ZSCORE", h.key("leases"), field})->type == REDIS_REPLY_STRING);  // still leased
  const std::string want = "att: job " + field + " names lane nil";
  const auto lines = violations(h.c.get(), h.q);
  INFO("verify: " << lines.size() << " lines");
  CHECK(std::any_of(lines.begin(), lines.end(),
                    [&](const std::string &l) { return l.find(want) != std::string::npos; }));
}
