// verify knows every lifecycle key and place (a cancel mark, a start
// deadline, a time limit, the burst ring, the config flags), and repair
// puts each right.
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <string>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

bool reports(echomq_client *c, const std::string &q, const std::string &part) {
  for (const std::string &line : violations(c, q))
    if (line.find(part) != std::string::npos) return true;
  return false;
}

void repair(echomq_client *c, const std::string &q) {
  echomq_report *r = nullptr;
  EMQ_REQUIRE_OK(c, echomq_repair(c, q.c_str(), 1, nullptr, 1000, &r));
  echomq_report_free(r);
}

}  // namespace

TEST_CASE("verify and repair know the lifecycle's keys", "[verify_life]") {
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("verify_life");
  const std::string p = "emq:{" + q + "}:";
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit_burst(c.get(), q.c_str(), "busy", 1, 3));
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.ttl_ms = 3600000;
  o.timeout_ms = 60000;
  const uint64_t waiting = enqueue(c.get(), q, "busy", "w", &o);
  enqueue(c.get(), q, "busy", "x", &o);
  enqueue(c.get(), q, "busy", "y", &o);
  JobPtr held = claim(c.get(), q, kLease);
  REQUIRE(held);
  require_verified(c.get(), q);
  CHECK(lane(c.get(), q, "busy").bursting == 1);

  SECTION("a cancel mark of a job that is not leased") {
    const uint64_t pending = waiting + 1;
    raw.must({"HSET", p + "cancels", std::to_string(pending), "canceled"});
    CHECK(reports(c.get(), q, "cancels marks job " + std::to_string(pending)));
    CHECK(reports(c.get(), q, "config life lacks c"));
  }
  SECTION("a start deadline of a job that started") {
    raw.must({"ZADD", p + "expiry", "1", std::to_string(echomq_job_id(held.get()))});
    CHECK(reports(c.get(), q, "which is not waiting"));
  }
  SECTION("a time limit of no job") {
    raw.must({"HSET", p + "tmo", "999999", "5"});
    CHECK(reports(c.get(), q, "tmo holds job 999999"));
  }
  SECTION("a bursting lane out of the burst ring") {
    raw.must({"DEL", p + "bring"});
    CHECK(reports(c.get(), q, "bursting but not in the burst ring"));
  }
  SECTION("a lane in the burst ring that is not bursting") {
    enqueue(c.get(), q, "calm", "z");
    raw.must({"RPUSH", p + "bring", "calm"});
    CHECK(reports(c.get(), q, "calm is in the burst ring but not bursting"));
  }
  SECTION("a flag off while its key holds entries") {
    raw.must({"HDEL", p + "config", "life"});
    CHECK(reports(c.get(), q, "gburst holds entries but config life lacks b"));
  }
  repair(c.get(), q);
  require_verified(c.get(), q);
}
