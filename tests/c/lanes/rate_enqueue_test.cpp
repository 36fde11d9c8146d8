// Enqueue into a lane that has no jobs yet but has a rate: enqueue decides
// whether the lane may join the ring from its token bucket (rateState).
#include "test_env.hpp"

using namespace emqtest;

TEST_CASE("enqueue into an empty lane with a rate (own or default) works", "[rate]") {
  auto c = connect_client();
  const std::string q = fresh_queue("rate-enqueue");
  EMQ_REQUIRE_OK(c.get(), echomq_set_rate(c.get(), q.c_str(), "slow", 1, 60000, 1));
  enqueue(c.get(), q, "slow", "one");
  enqueue(c.get(), q, "slow", "two");
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_rate(c.get(), q.c_str(), 5, 1000, 0));
  enqueue(c.get(), q, "other", "three");
  JobPtr a = claim(c.get(), q, 60000);
  REQUIRE(a);
  ack(c.get(), q, a.get());
  JobPtr b = claim(c.get(), q, 60000);
  REQUIRE(b);
  ack(c.get(), q, b.get());
  CHECK(stats(c.get(), q).pending == 1);  // the slow lane's second job waits for its token
  require_verified(c.get(), q);
}
