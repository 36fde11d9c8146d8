// Start deadlines (echomq_enqueue_options.expires_at_ms / ttl_ms): a job
// not started by then never starts. It dies "expired" (or is dropped),
// found by the claims that run anyway with bounded work per call; a lane
// whose head job expired is not blocked by it; no claim returns one.
#include "test_env.hpp"

#include <string>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

echomq_enqueue_options with_ttl(int64_t ms, unsigned flags = 0) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.ttl_ms = ms;
  o.expire_flags = flags;
  return o;
}

}  // namespace

TEST_CASE("an expired job at the head of a busy lane is passed over, never returned", "[expiry]") {
  auto c = connect_client();
  const std::string q = fresh_queue("exp_head");
  echomq_enqueue_options o = with_ttl(100);
  const uint64_t head = enqueue(c.get(), q, "busy", "head", &o);
  uint64_t next = 0;
  for (int i = 0; i < 20; ++i) {
    const uint64_t id = enqueue(c.get(), q, "busy", "b" + std::to_string(i));
    if (i == 0) next = id;
  }
  for (int i = 0; i < 5; ++i) enqueue(c.get(), q, "quiet", "q" + std::to_string(i));
  sleep_ms(150);
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  CHECK(echomq_job_id(j.get()) == next);
  JobPtr dead = get_job(c.get(), q, head);
  CHECK(echomq_job_state_of(dead.get()) == ECHOMQ_JOB_DEAD);
  CHECK(std::string(echomq_job_last_error(dead.get())) == "expired");
  // The rotation goes on: the quiet lane's turn comes next.
  JobPtr k = claim(c.get(), q, kLease);
  REQUIRE(k);
  CHECK(std::string(echomq_job_group(k.get())) == "quiet");
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.dead == 1);
  CHECK(s.pending == 19 + 4);
  require_verified(c.get(), q);
}

TEST_CASE("more expired jobs than one call removes: no claim returns one", "[expiry]") {
  auto c = connect_client();
  const std::string q = fresh_queue("exp_many");
  BatchPtr b(echomq_batch_create());
  for (int i = 0; i < 100; ++i) REQUIRE(echomq_batch_add(b.get(), "g", "x", 1) == ECHOMQ_OK);
  echomq_enqueue_options o = with_ttl(80, ECHOMQ_EXPIRE_DROP);
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), b.get(), &o));
  const uint64_t live = enqueue(c.get(), q, "g", "live");
  sleep_ms(120);
  // One claim call removes ECHOMQ_RECOVER_MAX of them and claims nothing;
  // the client calls again until the live job comes.
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  CHECK(echomq_job_id(j.get()) == live);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.dead == 0);  // dropped, as asked
  CHECK(s.pending == 0);
  CHECK(s.leased == 1);
  ack(c.get(), q, j.get());
  require_verified(c.get(), q);
}

TEST_CASE("a delayed job whose deadline passes before it runs never starts", "[expiry]") {
  auto c = connect_client();
  const std::string q = fresh_queue("exp_delayed");
  echomq_enqueue_options o = with_ttl(120);
  o.delay_ms = 50;
  const uint64_t id = enqueue(c.get(), q, "g", "d", &o);
  sleep_ms(160);
  CHECK_FALSE(claim(c.get(), q, kLease));
  CHECK(echomq_job_state_of(get_job(c.get(), q, id).get()) == ECHOMQ_JOB_DEAD);
  require_verified(c.get(), q);
}

TEST_CASE("a job started before its deadline never expires, also when retried", "[expiry]") {
  auto c = connect_client();
  const std::string q = fresh_queue("exp_started");
  echomq_enqueue_options o = with_ttl(100);
  const uint64_t id = enqueue(c.get(), q, "g", "x", &o);
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  sleep_ms(150);
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "again", 0, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_RETRY);
  JobPtr again = claim(c.get(), q, kLease);
  REQUIRE(again);
  CHECK(echomq_job_id(again.get()) == id);
  ack(c.get(), q, again.get());
  require_verified(c.get(), q);
}
