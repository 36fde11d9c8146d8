// Fencing across a failover, with real processes: a primary and a replica
// whose replication link runs through a proxy. The link is cut, a job is
// claimed on the primary (the replica never sees the claim), the primary is
// killed (SIGKILL) and the replica promoted (REPLICAOF NO ONE). The job is
// claimed again there with the same attempt number, yet under a greater token:
// the old holder's ack, extend and fail are refused and change nothing, the
// new holder's ack is accepted, and verify finds nothing wrong.
#include "replica_pair.hpp"

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

void require_stale(echomq_client *c, int rc, const char *what) {
  INFO(what << " -> " << describe(c, rc));
  CHECK(rc == ECHOMQ_ESTALE);
}

}  // namespace

TEST_CASE("a claim lost in a failover leaves its holder stale on the promoted replica",
          "[failover]") {
  ReplicaPair pair;
  PrivateServer &primary = pair.primary, &replica = pair.replica;
  RawValkey &praw = pair.praw(), &rraw = pair.rraw();

  const std::string q = fresh_queue("failover");
  auto pc = connect_client(nullptr, primary.url());
  const uint64_t id = enqueue(pc.get(), q, "g", "once");
  enqueue(pc.get(), q, "g", "bystander");
  // Replicated: the replica acknowledges a write made after the enqueues
  // (WAIT counts the replicas that have this connection's last write).
  praw.must({"SET", "failover-test-mark", "1"});
  REQUIRE(praw.integer({"WAIT", "1", "10000"}) == 1);
  REQUIRE(rraw.integer({"HLEN", "emq:{" + q + "}:jobs"}) == 2);

  pair.link.partition();
  JobPtr old_holder = claim(pc.get(), q, kLease);
  REQUIRE(old_holder);
  REQUIRE(echomq_job_id(old_holder.get()) == id);
  REQUIRE(echomq_job_attempt(old_holder.get()) == 1);
  const uint64_t old_token = echomq_job_token(old_holder.get());
  praw.must({"SET", "failover-test-mark", "2"});
  CHECK(praw.integer({"WAIT", "1", "300"}) == 0);  // the claim never reached the replica
  CHECK(rraw.must({"ZSCORE", "emq:{" + q + "}:leases", std::to_string(id)})->type == REDIS_REPLY_NIL);

  pc.reset();
  primary.stop();  // SIGKILL by its pid
  rraw.must({"REPLICAOF", "NO", "ONE"});

  auto rc = connect_client(nullptr, replica.url());
  JobPtr new_holder = claim(rc.get(), q, kLease);
  REQUIRE(new_holder);
  CHECK(echomq_job_id(new_holder.get()) == id);
  CHECK(echomq_job_attempt(new_holder.get()) == 1);  // the promoted replica lost attempt 1
  const uint64_t new_token = echomq_job_token(new_holder.get());
  // The clocks agree (one machine): the replacement's token is the greater.
  CHECK(new_token > old_token);

  // The old holder follows the failover to the new primary: refused, nothing changes.
  const Keyspace before = rraw.queue_snapshot(q);
  require_stale(rc.get(), echomq_ack(rc.get(), q.c_str(), id, old_token), "old holder's ack");
  require_stale(rc.get(), echomq_extend(rc.get(), q.c_str(), id, old_token, kLease, nullptr),
                "old holder's extend");
  require_stale(rc.get(), echomq_fail(rc.get(), q.c_str(), id, old_token, "late", 0, nullptr),
                "old holder's fail");
  const Keyspace after = rraw.queue_snapshot(q);
  INFO("keys changed by refused calls:\n" << keyspace_diff(before, after));
  CHECK(before == after);

  EMQ_REQUIRE_OK(rc.get(), echomq_ack(rc.get(), q.c_str(), id, new_token));
  JobPtr bystander = claim(rc.get(), q, kLease);
  REQUIRE(bystander);
  CHECK(payload_of(bystander.get()) == "bystander");
  ack(rc.get(), q, bystander.get());
  echomq_queue_stats s = stats(rc.get(), q);
  CHECK(s.acked_total == 2);
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  require_verified(rc.get(), q);
}
