// echomq_ack_claim: ack and claim in one round trip; a refused ack claims nothing.
#include "test_env.hpp"

#include "raw_valkey.hpp"

using namespace emqtest;

namespace {
constexpr int64_t kLongLease = 60000;
}

TEST_CASE("ack_claim acks the job and claims the next one", "[ack_claim]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ackclaim");
  const uint64_t first = enqueue(c.get(), q, "a", "1");
  const uint64_t second = enqueue(c.get(), q, "b", "2");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  REQUIRE(echomq_job_id(job.get()) == first);

  echomq_job *next = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_ack_claim(c.get(), q.c_str(), first, echomq_job_token(job.get()), kLongLease, &next));
  REQUIRE(next != nullptr);
  JobPtr owned(next);
  CHECK(echomq_job_id(owned.get()) == second);
  CHECK(std::string(echomq_job_group(owned.get())) == "b");
  CHECK(echomq_job_attempt(owned.get()) == 1);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.acked_total == 1);
  CHECK(s.leased == 1);
  CHECK(s.claimed_total == 2);

  // Nothing left: the ack still happens, the claim reports EMPTY.
  next = reinterpret_cast<echomq_job *>(&s);  // must be overwritten with NULL
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EMPTY,
                     echomq_ack_claim(c.get(), q.c_str(), second, echomq_job_token(owned.get()), kLongLease, &next));
  CHECK(next == nullptr);
  s = stats(c.get(), q);
  CHECK(s.acked_total == 2);
  CHECK(s.leased == 0);
  require_verified(c.get(), q);
}

TEST_CASE("ack_claim with a stale token acks nothing and claims nothing", "[ack_claim]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("ackstale");
  const uint64_t first = enqueue(c.get(), q, "g", "1");
  enqueue(c.get(), q, "g", "2");
  enqueue(c.get(), q, "g", "3");
  JobPtr old_holder = claim(c.get(), q, 80);
  REQUIRE(old_holder);
  sleep_ms(250);
  JobPtr new_holder = claim(c.get(), q, kLongLease);
  REQUIRE(new_holder);
  REQUIRE(echomq_job_id(new_holder.get()) == first);
  REQUIRE(echomq_job_attempt(new_holder.get()) == 2);

  const Keyspace before = raw.queue_snapshot(q);
  echomq_job *next = nullptr;
  const int rc = echomq_ack_claim(c.get(), q.c_str(), first, echomq_job_token(old_holder.get()), kLongLease, &next);
  INFO("stale ack_claim -> " << describe(c.get(), rc));
  CHECK(rc == ECHOMQ_ESTALE);
  CHECK(next == nullptr);
  CHECK(std::string(echomq_client_errmsg(c.get())) != "");
  echomq_job_free(next);
  const Keyspace after = raw.queue_snapshot(q);
  INFO("keys changed:\n" << keyspace_diff(before, after));
  CHECK(before == after);

  // Unknown job: ENOTFOUND, and still nothing claimed.
  next = nullptr;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND,
                     echomq_ack_claim(c.get(), q.c_str(), first + 500, echomq_job_token(new_holder.get()), kLongLease, &next));
  CHECK(next == nullptr);
  echomq_job_free(next);
  CHECK(raw.queue_snapshot(q) == before);

  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.leased == 1);
  CHECK(s.pending == 2);
  ack(c.get(), q, new_holder.get());
  require_verified(c.get(), q);
}

TEST_CASE("a claim/ack_claim loop drains every lane fairly", "[ack_claim]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ackloop");
  for (int i = 0; i < 30; ++i) enqueue(c.get(), q, "big", std::to_string(i));
  for (int i = 0; i < 3; ++i) enqueue(c.get(), q, "small", std::to_string(i));
  JobPtr job = claim(c.get(), q, kLongLease);
  std::vector<std::string> groups;
  while (job) {
    groups.emplace_back(echomq_job_group(job.get()));
    echomq_job *next = nullptr;
    const int rc = echomq_ack_claim(c.get(), q.c_str(), echomq_job_id(job.get()),
                                    echomq_job_token(job.get()), kLongLease, &next);
    INFO(describe(c.get(), rc));
    REQUIRE((rc == ECHOMQ_OK || rc == ECHOMQ_EMPTY));
    job.reset(next);
  }
  REQUIRE(groups.size() == 33);
  const std::vector<std::string> head(groups.begin(), groups.begin() + 6);
  CHECK(head == std::vector<std::string>{"big", "small", "big", "small", "big", "small"});
  CHECK(stats(c.get(), q).acked_total == 33);
  require_verified(c.get(), q);
}

TEST_CASE("ack_claim under a limit of 1 hands the freed slot to the same lane", "[ack_claim]") {
  auto c = connect_client();
  const std::string q = fresh_queue("acklimit");
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "one", 1));
  for (int i = 0; i < 4; ++i) enqueue(c.get(), q, "one", std::to_string(i));
  JobPtr job = claim(c.get(), q, kLongLease);
  int served = 0;
  while (job) {
    CHECK(payload_of(job.get()) == std::to_string(served));
    ++served;
    CHECK(lane(c.get(), q, "one").active == 1);
    echomq_job *next = nullptr;
    const int rc = echomq_ack_claim(c.get(), q.c_str(), echomq_job_id(job.get()),
                                    echomq_job_token(job.get()), kLongLease, &next);
    INFO(describe(c.get(), rc));
    REQUIRE((rc == ECHOMQ_OK || rc == ECHOMQ_EMPTY));
    job.reset(next);
  }
  CHECK(served == 4);
  CHECK(lane(c.get(), q, "one").active == 0);
  require_verified(c.get(), q);
}
