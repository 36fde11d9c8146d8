// The read-only calls (stats, lane, lanes, dead, verify) run read-only
// scripts with EVALSHA_RO: they answer on a replica and while the server is
// under CLIENT PAUSE WRITE, where a writing script would be refused or wait.
#include "test_env.hpp"

#include "raw_valkey.hpp"

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

/// Calls every read-only operation on queue q; each must succeed.
void read_everything(echomq_client *c, const std::string &q, uint64_t pending) {
  echomq_queue_stats s{};
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  EMQ_REQUIRE_OK(c, echomq_stats(c, q.c_str(), &s));
  CHECK(s.pending == pending);
  echomq_lane_info li{};
  li.version = ECHOMQ_LANE_INFO_VERSION;
  EMQ_REQUIRE_OK(c, echomq_lane(c, q.c_str(), "a", &li));
  echomq_lane_list *lanes = nullptr;
  EMQ_REQUIRE_OK(c, echomq_lanes(c, q.c_str(), nullptr, 10, &lanes));
  echomq_lane_list_free(lanes);
  echomq_job_list *dead = nullptr;
  EMQ_REQUIRE_OK(c, echomq_dead(c, q.c_str(), 0, 10, &dead));
  CHECK(echomq_job_list_count(dead) == 1);
  echomq_job_list_free(dead);
  echomq_report *r = nullptr;
  EMQ_REQUIRE_OK(c, echomq_verify(c, q.c_str(), &r));
  CHECK(echomq_report_count(r) == 0);
  echomq_report_free(r);
}

/// Three pending jobs on two lanes, one leased, one dead.
void seed(echomq_client *c, const std::string &q) {
  echomq_enqueue_options once = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  once.max_attempts = 1;
  enqueue(c, q, "a", "dies", &once);
  JobPtr j = claim(c, q, kLease);
  REQUIRE(j);
  EMQ_REQUIRE_OK(c, echomq_fail(c, q.c_str(), echomq_job_id(j.get()), echomq_job_token(j.get()),
                                "boom", 0, nullptr));
  for (const char *g : {"a", "b", "a", "b"}) enqueue(c, q, g, "x");
  REQUIRE(claim(c, q, kLease));
}

std::string info_field(RawValkey &raw, const std::string &section, const std::string &field) {
  ReplyPtr r = raw.must({"INFO", section});
  const std::string text(r->str, r->len);
  const auto at = text.find(field + ":");
  if (at == std::string::npos) return "";
  const auto from = at + field.size() + 1;
  return text.substr(from, text.find('\r', from) - from);
}

}  // namespace

TEST_CASE("read-only calls answer under CLIENT PAUSE WRITE", "[readonly]") {
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("paused-writes");
  seed(c.get(), q);

  // A short command timeout: a call that waited for the pause would fail.
  echomq_client_options o = ECHOMQ_CLIENT_OPTIONS_INIT;
  o.command_timeout_ms = 1500;
  struct Unpause {
    RawValkey &raw;
    ~Unpause() { raw.command({"CLIENT", "UNPAUSE"}); }
  } unpause{raw};
  raw.must({"CLIENT", "PAUSE", "6000", "WRITE"});
  const int64_t t0 = mono_ms();
  read_everything(c.get(), q, 3);
  // A client that connects during the pause loads its scripts and reads too.
  ClientPtr late = connect_client(&o);
  read_everything(late.get(), q, 3);
  CHECK(mono_ms() - t0 < 3000);
}

TEST_CASE("read-only calls answer on a replica, writing calls are refused there", "[readonly]") {
  PrivateServer primary(free_port());
  primary.start();
  PrivateServer replica(free_port(), "--replicaof 127.0.0.1 " + std::to_string(primary.port()));
  replica.start();
  RawValkey raw_replica("127.0.0.1", replica.port());
  for (int i = 0; i < 200 && info_field(raw_replica, "replication", "master_link_status") != "up"; ++i)
    sleep_ms(50);
  REQUIRE(info_field(raw_replica, "replication", "master_link_status") == "up");

  ClientPtr writer = connect_client(nullptr, primary.url());
  const std::string q = fresh_queue("replica");
  seed(writer.get(), q);
  RawValkey raw_primary("127.0.0.1", primary.port());
  raw_primary.must({"WAIT", "1", "5000"});

  ClientPtr reader = connect_client(nullptr, replica.url());
  read_everything(reader.get(), q, 3);

  const Keyspace before = raw_replica.queue_snapshot(q);
  const int rc = echomq_enqueue(reader.get(), q.c_str(), "a", "x", 1, nullptr, nullptr);
  INFO("enqueue on a replica -> " << describe(reader.get(), rc));
  CHECK(rc == ECHOMQ_ESERVER);
  CHECK(std::string(echomq_client_errmsg(reader.get())).find("READONLY") != std::string::npos);
  echomq_job *j = nullptr;
  CHECK(echomq_claim(reader.get(), q.c_str(), kLease, &j) == ECHOMQ_ESERVER);
  CHECK(keyspace_diff(before, raw_replica.queue_snapshot(q)) == "");
}
