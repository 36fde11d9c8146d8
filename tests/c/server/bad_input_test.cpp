// Bad input: every refused call returns a clear status with a message, sends
// nothing to the server and changes nothing. Each check compares a snapshot of
// the whole keyspace (every key and its DUMP) and of every client's traffic
// (CLIENT LIST tot-net-in) before and after the call. These tests FLUSHALL and
// watch the whole server, so CTest runs them alone (RUN_SERIAL).
#include "test_env.hpp"

#include "raw_valkey.hpp"


#include <functional>

using namespace emqtest;

namespace {

constexpr int64_t kLongLease = 60000;
constexpr size_t kMaxPayload = 1024;

/// A server holding one queue with work in every state, and a client with a
/// small payload limit. `refused` checks one call against it.
struct Seeded {
  RawValkey raw;
  ClientPtr c;
  std::string q = "seeded";
  JobPtr held;  // a live lease: a call that should be refused could act on it
  Keyspace keys;

  Seeded() {
    raw.must({"FLUSHALL"});
    echomq_client_options opts = ECHOMQ_CLIENT_OPTIONS_INIT;
    opts.max_payload_bytes = kMaxPayload;
    c = connect_client(&opts);
    echomq_enqueue_options once = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    once.max_attempts = 1;
    const uint64_t dies = enqueue(c.get(), q, "g", "dies", &once);
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    REQUIRE(echomq_job_id(job.get()) == dies);
    EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), dies, echomq_job_token(job.get()), "x", 0, nullptr));
    for (int i = 0; i < 3; ++i) enqueue(c.get(), q, "g", "g" + std::to_string(i));
    enqueue(c.get(), q, "h", "h0");
    enqueue(c.get(), q, "p", "p0");
    echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    later.delay_ms = 600000;
    enqueue(c.get(), q, "h", "later", &later);
    EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "p"));
    EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", 2));
    EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "h", 5));
    held = claim(c.get(), q, kLongLease);
    REQUIRE(held);
    require_verified(c.get(), q);
    keys = raw.snapshot();
    REQUIRE(keys.size() > 5);
  }

  uint64_t held_id() const { return echomq_job_id(held.get()); }
  uint64_t held_token() const { return echomq_job_token(held.get()); }

  /// Runs `call` on `client` and checks: status `expected`, a message,
  /// no traffic to the server, and an unchanged keyspace.
  void refused(const std::string &what, int expected, echomq_client *client,
               const std::function<int(echomq_client *)> &call) {
    const Traffic traffic_before = raw.traffic();
    const int rc = call(client);
    const Traffic traffic_after = raw.traffic();
    INFO(what << " -> " << describe(client, rc));
    CHECK(rc == expected);
    CHECK(std::string(echomq_client_errmsg(client)) != "");
    CHECK(echomq_client_errcode(client) == rc);
    INFO("traffic of " << what << ":\n" << traffic_diff(traffic_before, traffic_after));
    CHECK(traffic_diff(traffic_before, traffic_after).empty());
    const Keyspace now = raw.snapshot();
    INFO("keys changed by " << what << ":\n" << keyspace_diff(keys, now));
    REQUIRE(now == keys);
  }
  void refused(const std::string &what, int expected,
               const std::function<int(echomq_client *)> &call) {
    refused(what, expected, c.get(), call);
  }
};

std::string printable(const std::string &s) { return Catch::Detail::stringify(s); }

const std::vector<std::string> &bad_queue_names() {
  static const std::vector<std::string> names = {
      "", std::string(ECHOMQ_QUEUE_NAME_MAX + 1, 'q'), "a{b}", "{seeded}", "a:b", "a b",
      "a/b", "q\x01", "q\n", "\xc3\xa9t\xc3\xa9", "a*"};
  return names;
}

const std::vector<std::string> &bad_group_names() {
  static const std::vector<std::string> names = {
      "", std::string(ECHOMQ_GROUP_NAME_MAX + 1, 'g'), "g\x01", "g\nh", "\t", "g\x7f",
      "g\xc2\x80", "g\xc2\x9f", "\xff", "g\xc3", "\xc0\xaf", "\xed\xa0\x80",
      "\xf4\x90\x80\x80", "\xe6\x97"};
  return names;
}

}  // namespace

TEST_CASE("bad queue names are refused by every call, before any I/O", "[bad_input]") {
  Seeded s;
  for (const std::string &bad : bad_queue_names()) {
    const char *q = bad.c_str();
    const std::string n = "queue " + printable(bad) + ": ";
    const uint64_t id = s.held_id();
    const uint64_t tok = s.held_token();
    s.refused(n + "enqueue", ECHOMQ_EINVAL, [&](echomq_client *c) {
      uint64_t out = 0;
      return echomq_enqueue(c, q, "g", "x", 1, nullptr, &out);
    });
    s.refused(n + "claim", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job *j = nullptr;
      const int rc = echomq_claim(c, q, kLongLease, &j);
      echomq_job_free(j);
      return rc;
    });
    s.refused(n + "wclaim", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job_list *l = nullptr;
      const int rc = echomq_wclaim(c, q, kLongLease, 5, &l);
      echomq_job_list_free(l);
      return rc;
    });
    s.refused(n + "bclaim", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job *j = nullptr;
      const int rc = echomq_bclaim(c, q, kLongLease, 100, &j);
      echomq_job_free(j);
      return rc;
    });
    s.refused(n + "ack", ECHOMQ_EINVAL, [&](echomq_client *c) { return echomq_ack(c, q, id, tok); });
    s.refused(n + "ack_claim", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job *j = nullptr;
      const int rc = echomq_ack_claim(c, q, id, tok, kLongLease, &j);
      echomq_job_free(j);
      return rc;
    });
    s.refused(n + "fail", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_fail(c, q, id, tok, "r", 0, nullptr); });
    s.refused(n + "extend", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_extend(c, q, id, tok, 1000, nullptr); });
    s.refused(n + "set_weight", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_weight(c, q, "g", 3); });
    s.refused(n + "clear_weight", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_clear_weight(c, q, "g"); });
    s.refused(n + "set_limit", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_limit(c, q, "g", 3); });
    s.refused(n + "clear_limit", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_clear_limit(c, q, "h"); });
    s.refused(n + "pause", ECHOMQ_EINVAL, [&](echomq_client *c) { return echomq_pause(c, q, "g"); });
    s.refused(n + "resume", ECHOMQ_EINVAL, [&](echomq_client *c) { return echomq_resume(c, q, "p"); });
    s.refused(n + "set_default_weight", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_default_weight(c, q, 2); });
    s.refused(n + "set_default_limit", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_default_limit(c, q, 2); });
    s.refused(n + "set_default_max_attempts", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_default_max_attempts(c, q, 2); });
    s.refused(n + "stats", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_queue_stats st{};
      st.version = ECHOMQ_QUEUE_STATS_VERSION;
      return echomq_stats(c, q, &st);
    });
    s.refused(n + "lane", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_lane_info info{};
      info.version = ECHOMQ_LANE_INFO_VERSION;
      return echomq_lane(c, q, "g", &info);
    });
    s.refused(n + "lanes", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_lane_list *l = nullptr;
      const int rc = echomq_lanes(c, q, nullptr, 10, &l);
      echomq_lane_list_free(l);
      return rc;
    });
    s.refused(n + "dead", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job_list *l = nullptr;
      const int rc = echomq_dead(c, q, 0, 10, &l);
      echomq_job_list_free(l);
      return rc;
    });
    s.refused(n + "redrive", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_redrive(c, q, &id, 1, nullptr); });
    s.refused(n + "redrive_all", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_redrive_all(c, q, nullptr); });
    s.refused(n + "verify", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_report *r = nullptr;
      const int rc = echomq_verify(c, q, &r);
      echomq_report_free(r);
      return rc;
    });
    s.refused(n + "enqueue_batch", ECHOMQ_EINVAL, [&](echomq_client *c) {
      BatchPtr b(echomq_batch_create());
      REQUIRE(echomq_batch_add(b.get(), "g", "x", 1) == ECHOMQ_OK);
      return echomq_enqueue_batch(c, q, b.get(), nullptr);
    });
  }
  s.refused("NULL queue: enqueue", ECHOMQ_EINVAL, [&](echomq_client *c) {
    return echomq_enqueue(c, nullptr, "g", "x", 1, nullptr, nullptr);
  });
  s.refused("NULL queue: stats", ECHOMQ_EINVAL, [&](echomq_client *c) {
    echomq_queue_stats st{};
    st.version = ECHOMQ_QUEUE_STATS_VERSION;
    return echomq_stats(c, nullptr, &st);
  });
  require_verified(s.c.get(), s.q);
}

TEST_CASE("bad group names are refused before any I/O", "[bad_input]") {
  Seeded s;
  const char *q = s.q.c_str();
  for (const std::string &bad : bad_group_names()) {
    const char *g = bad.c_str();
    const std::string n = "group " + printable(bad) + ": ";
    s.refused(n + "enqueue", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_enqueue(c, q, g, "x", 1, nullptr, nullptr); });
    s.refused(n + "set_weight", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_weight(c, q, g, 2); });
    s.refused(n + "clear_weight", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_clear_weight(c, q, g); });
    s.refused(n + "set_limit", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_limit(c, q, g, 2); });
    s.refused(n + "clear_limit", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_clear_limit(c, q, g); });
    s.refused(n + "pause", ECHOMQ_EINVAL, [&](echomq_client *c) { return echomq_pause(c, q, g); });
    s.refused(n + "resume", ECHOMQ_EINVAL, [&](echomq_client *c) { return echomq_resume(c, q, g); });
    s.refused(n + "lane", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_lane_info info{};
      info.version = ECHOMQ_LANE_INFO_VERSION;
      return echomq_lane(c, q, g, &info);
    });
    BatchPtr b(echomq_batch_create());
    INFO(n << "batch_add");
    CHECK(echomq_batch_add(b.get(), g, "x", 1) == ECHOMQ_EINVAL);
    CHECK(echomq_batch_count(b.get()) == 0);
  }
  s.refused("NULL group: enqueue", ECHOMQ_EINVAL,
            [&](echomq_client *c) { return echomq_enqueue(c, q, nullptr, "x", 1, nullptr, nullptr); });
  require_verified(s.c.get(), s.q);
}

TEST_CASE("a payload over the client's max_payload_bytes is ETOOLARGE", "[bad_input]") {
  Seeded s;
  const char *q = s.q.c_str();
  const std::string big(kMaxPayload + 1, 'x');
  s.refused("enqueue of max+1 bytes", ECHOMQ_ETOOLARGE, [&](echomq_client *c) {
    return echomq_enqueue(c, q, "g", big.data(), big.size(), nullptr, nullptr);
  });
  s.refused("batch holding one payload of max+1 bytes", ECHOMQ_ETOOLARGE, [&](echomq_client *c) {
    BatchPtr b(echomq_batch_create());
    REQUIRE(echomq_batch_add(b.get(), "g", "fine", 4) == ECHOMQ_OK);
    REQUIRE(echomq_batch_add(b.get(), "g", big.data(), big.size()) == ECHOMQ_OK);
    REQUIRE(echomq_batch_add(b.get(), "h", "fine too", 8) == ECHOMQ_OK);
    const int rc = echomq_enqueue_batch(c, q, b.get(), nullptr);
    CHECK(echomq_batch_id(b.get(), 0) == 0);
    return rc;
  });
  s.refused("empty batch", ECHOMQ_EINVAL, [&](echomq_client *c) {
    BatchPtr b(echomq_batch_create());
    return echomq_enqueue_batch(c, q, b.get(), nullptr);
  });
  s.refused("NULL payload with a length", ECHOMQ_EINVAL,
            [&](echomq_client *c) { return echomq_enqueue(c, q, "g", nullptr, 5, nullptr, nullptr); });

  // A batch cannot hold a payload over the hard maximum at all.
  {
    BatchPtr b(echomq_batch_create());
    const std::string huge(static_cast<size_t>(ECHOMQ_HARD_MAX_PAYLOAD) + 1, 'h');
    CHECK(echomq_batch_add(b.get(), "g", huge.data(), huge.size()) == ECHOMQ_ETOOLARGE);
    CHECK(echomq_batch_count(b.get()) == 0);
  }

  // A batch holds at most ECHOMQ_BATCH_MAX jobs; a full one enqueues in one go.
  {
    BatchPtr b(echomq_batch_create());
    for (int i = 0; i < ECHOMQ_BATCH_MAX; ++i) REQUIRE(echomq_batch_add(b.get(), "full", "f", 1) == ECHOMQ_OK);
    CHECK(echomq_batch_add(b.get(), "full", "f", 1) == ECHOMQ_ETOOLARGE);
    CHECK(echomq_batch_count(b.get()) == size_t(ECHOMQ_BATCH_MAX));
    EMQ_REQUIRE_OK(s.c.get(), echomq_enqueue_batch(s.c.get(), "batchfull", b.get(), nullptr));
    CHECK(stats(s.c.get(), "batchfull").pending == uint64_t(ECHOMQ_BATCH_MAX));
    require_verified(s.c.get(), "batchfull");
    s.keys = s.raw.snapshot();
  }

  // Exactly the maximum is accepted (so the check above is at the boundary).
  uint64_t id = 0;
  const std::string at_max(kMaxPayload, 'x');
  EMQ_REQUIRE_OK(s.c.get(), echomq_enqueue(s.c.get(), q, "g", at_max.data(), at_max.size(),
                                           nullptr, &id));
  CHECK(id > 0);
  require_verified(s.c.get(), s.q);
}

TEST_CASE("numbers out of range are refused before any I/O", "[bad_input]") {
  Seeded s;
  const char *q = s.q.c_str();
  const uint64_t id = s.held_id();
  const uint64_t tok = s.held_token();
  const int64_t too_long_lease = ECHOMQ_LEASE_MAX_MS + 1;

  for (int64_t lease : {int64_t(0), int64_t(-1), int64_t(too_long_lease)}) {
    const std::string n = "lease " + std::to_string(lease) + ": ";
    s.refused(n + "claim", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job *j = nullptr;
      const int rc = echomq_claim(c, q, lease, &j);
      echomq_job_free(j);
      return rc;
    });
    s.refused(n + "wclaim", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job_list *l = nullptr;
      const int rc = echomq_wclaim(c, q, lease, 5, &l);
      echomq_job_list_free(l);
      return rc;
    });
    s.refused(n + "bclaim", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job *j = nullptr;
      const int rc = echomq_bclaim(c, q, lease, 100, &j);
      echomq_job_free(j);
      return rc;
    });
    s.refused(n + "extend of the live lease", ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_extend(c, q, id, tok, lease, nullptr); });
    s.refused(n + "ack_claim of the live lease", ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job *j = nullptr;
      const int rc = echomq_ack_claim(c, q, id, tok, lease, &j);
      echomq_job_free(j);
      return rc;
    });
  }
  for (uint32_t max : {0u, ECHOMQ_WCLAIM_MAX + 1u}) {
    s.refused("wclaim max " + std::to_string(max), ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job_list *l = nullptr;
      const int rc = echomq_wclaim(c, q, kLongLease, max, &l);
      echomq_job_list_free(l);
      return rc;
    });
  }
  for (int64_t timeout : {int64_t(0), int64_t(-5), int64_t(24) * 3600 * 1000 + 1}) {
    s.refused("bclaim timeout " + std::to_string(timeout), ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job *j = nullptr;
      const int rc = echomq_bclaim(c, q, kLongLease, timeout, &j);
      echomq_job_free(j);
      return rc;
    });
  }

  const auto with = [](int64_t delay, uint32_t attempts, unsigned version) {
    echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    o.delay_ms = delay;
    o.max_attempts = attempts;
    o.version = version;
    return o;
  };
  const std::vector<std::pair<std::string, echomq_enqueue_options>> bad_opts = {
      {"delay -1", with(-1, 0, ECHOMQ_ENQUEUE_OPTIONS_VERSION)},
      {"delay max+1", with(ECHOMQ_DELAY_MAX_MS + 1, 0, ECHOMQ_ENQUEUE_OPTIONS_VERSION)},
      {"max_attempts max+1", with(0, ECHOMQ_ATTEMPTS_MAX + 1, ECHOMQ_ENQUEUE_OPTIONS_VERSION)},
      {"options version 0", with(0, 0, 0)},
      {"options version 99", with(0, 0, 99)},
  };
  for (const auto &bad : bad_opts) {
    s.refused("enqueue " + bad.first, ECHOMQ_EINVAL, [&](echomq_client *c) {
      return echomq_enqueue(c, q, "g", "x", 1, &bad.second, nullptr);
    });
    s.refused("enqueue_batch " + bad.first, ECHOMQ_EINVAL, [&](echomq_client *c) {
      BatchPtr b(echomq_batch_create());
      REQUIRE(echomq_batch_add(b.get(), "g", "x", 1) == ECHOMQ_OK);
      return echomq_enqueue_batch(c, q, b.get(), &bad.second);
    });
  }

  for (int64_t delay : {int64_t(-3), int64_t(-100), int64_t(ECHOMQ_DELAY_MAX_MS + 1)}) {
    s.refused("fail retry delay " + std::to_string(delay), ECHOMQ_EINVAL, [&](echomq_client *c) {
      return echomq_fail(c, q, id, tok, "r", delay, nullptr);
    });
  }
  for (uint32_t w : {0u, ECHOMQ_WEIGHT_MAX + 1u}) {
    s.refused("weight " + std::to_string(w), ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_weight(c, q, "g", w); });
    s.refused("default weight " + std::to_string(w), ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_default_weight(c, q, w); });
  }
  for (uint32_t l : {0u, ECHOMQ_LIMIT_MAX + 1u}) {
    s.refused("limit " + std::to_string(l), ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_limit(c, q, "g", l); });
  }
  s.refused("default limit max+1", ECHOMQ_EINVAL, [&](echomq_client *c) {
    return echomq_set_default_limit(c, q, ECHOMQ_LIMIT_MAX + 1u);
  });
  for (uint32_t a : {0u, ECHOMQ_ATTEMPTS_MAX + 1u}) {
    s.refused("default max attempts " + std::to_string(a), ECHOMQ_EINVAL,
              [&](echomq_client *c) { return echomq_set_default_max_attempts(c, q, a); });
  }
  for (size_t count : {size_t(0), size_t(10001)}) {
    s.refused("lanes count " + std::to_string(count), ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_lane_list *l = nullptr;
      const int rc = echomq_lanes(c, q, nullptr, count, &l);
      echomq_lane_list_free(l);
      return rc;
    });
    s.refused("dead count " + std::to_string(count), ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_job_list *l = nullptr;
      const int rc = echomq_dead(c, q, 0, count, &l);
      echomq_job_list_free(l);
      return rc;
    });
  }
  const std::vector<uint64_t> many(10001, 1);
  s.refused("redrive of 0 ids", ECHOMQ_EINVAL,
            [&](echomq_client *c) { return echomq_redrive(c, q, many.data(), 0, nullptr); });
  s.refused("redrive of 10001 ids", ECHOMQ_EINVAL,
            [&](echomq_client *c) { return echomq_redrive(c, q, many.data(), many.size(), nullptr); });
  s.refused("redrive with NULL ids", ECHOMQ_EINVAL,
            [&](echomq_client *c) { return echomq_redrive(c, q, nullptr, 3, nullptr); });
  for (unsigned version : {0u, 99u}) {
    s.refused("stats version " + std::to_string(version), ECHOMQ_EINVAL, [&](echomq_client *c) {
      echomq_queue_stats st{};
      st.version = version;
      return echomq_stats(c, q, &st);
    });
  }
  s.refused("claim into NULL", ECHOMQ_EINVAL,
            [&](echomq_client *c) { return echomq_claim(c, q, kLongLease, nullptr); });
  s.refused("stats into NULL", ECHOMQ_EINVAL,
            [&](echomq_client *c) { return echomq_stats(c, q, nullptr); });
  s.refused("verify into NULL", ECHOMQ_EINVAL,
            [&](echomq_client *c) { return echomq_verify(c, q, nullptr); });

  // The boundaries themselves are accepted.
  echomq_enqueue_options edge = with(ECHOMQ_DELAY_MAX_MS, ECHOMQ_ATTEMPTS_MAX, ECHOMQ_ENQUEUE_OPTIONS_VERSION);
  EMQ_REQUIRE_OK(s.c.get(), echomq_enqueue(s.c.get(), q, "g", "edge", 4, &edge, nullptr));
  EMQ_REQUIRE_OK(s.c.get(), echomq_extend(s.c.get(), q, id, tok, ECHOMQ_LEASE_MAX_MS, nullptr));
  EMQ_REQUIRE_OK(s.c.get(), echomq_set_limit(s.c.get(), q, "g", ECHOMQ_LIMIT_MAX));
  require_verified(s.c.get(), s.q);
}

TEST_CASE("a NULL client handle is refused, not a crash", "[bad_input]") {
  echomq_job *j = nullptr;
  CHECK(echomq_claim(nullptr, "q", 1000, &j) == ECHOMQ_EINVAL);
  CHECK(j == nullptr);
  CHECK(echomq_enqueue(nullptr, "q", "g", "x", 1, nullptr, nullptr) == ECHOMQ_EINVAL);
  CHECK(echomq_client_connect(nullptr, "valkey://127.0.0.1:6379") == ECHOMQ_EINVAL);
  CHECK(echomq_client_connected(nullptr) == 0);
  echomq_client_cancel(nullptr);
  echomq_client_free(nullptr);
  echomq_job_free(nullptr);
  echomq_job_list_free(nullptr);
  echomq_lane_list_free(nullptr);
  echomq_report_free(nullptr);
  echomq_batch_free(nullptr);
}

TEST_CASE("bad client options are refused", "[bad_input]") {
  const auto with = [](unsigned version, int connect_ms, int command_ms, size_t max_payload) {
    echomq_client_options o = ECHOMQ_CLIENT_OPTIONS_INIT;
    o.version = version;
    o.connect_timeout_ms = connect_ms;
    o.command_timeout_ms = command_ms;
    o.max_payload_bytes = max_payload;
    return o;
  };
  const unsigned v = ECHOMQ_CLIENT_OPTIONS_VERSION;
  const size_t dflt = ECHOMQ_DEFAULT_MAX_PAYLOAD;
  const std::vector<std::pair<std::string, echomq_client_options>> bad = {
      {"version 0", with(0, 2000, 5000, dflt)},
      {"version 99", with(99, 2000, 5000, dflt)},
      {"connect timeout 0", with(v, 0, 5000, dflt)},
      {"command timeout -1", with(v, 2000, -1, dflt)},
      {"max payload 0", with(v, 2000, 5000, 0)},
      {"max payload over the hard max", with(v, 2000, 5000, size_t(ECHOMQ_HARD_MAX_PAYLOAD) + 1)},
  };
  for (const auto &b : bad) {
    INFO(b.first);
    echomq_client *c = reinterpret_cast<echomq_client *>(0x1);
    CHECK(echomq_client_new(&c, &b.second) == ECHOMQ_EINVAL);
    CHECK(c == nullptr);
    CHECK(echomq_client_create(&b.second) == nullptr);
  }
  echomq_client_options o{};
  CHECK(echomq_client_options_init(nullptr, v) == ECHOMQ_EINVAL);
  CHECK(echomq_client_options_init(&o, 99) == ECHOMQ_EINVAL);
  echomq_enqueue_options e{};
  CHECK(echomq_enqueue_options_init(nullptr, ECHOMQ_ENQUEUE_OPTIONS_VERSION) == ECHOMQ_EINVAL);
  CHECK(echomq_enqueue_options_init(&e, 99) == ECHOMQ_EINVAL);

  const echomq_client_options good = with(v, 1, 1, size_t(ECHOMQ_HARD_MAX_PAYLOAD));
  echomq_client *c = nullptr;
  CHECK(echomq_client_new(&c, &good) == ECHOMQ_OK);
  CHECK(c != nullptr);
  echomq_client_free(c);
}

TEST_CASE("bad URLs are refused with EINVAL and open no connection", "[bad_input]") {
  Seeded s;
  const Endpoint ep = server_endpoint();
  const std::string port = std::to_string(ep.port);
  const std::vector<std::string> bad = {
      "",
      "127.0.0.1:" + port,
      "http://127.0.0.1:" + port,
      "valkey://",
      "valkey://127.0.0.1:",
      "valkey://127.0.0.1:notaport",
      "valkey://127.0.0.1:65536",
      "valkey://127.0.0.1:0",
      "valkey://127.0.0.1:-1",
      "valkey://127.0.0.1:" + port + "/notadb",
      "valkey://127.0.0.1:" + port + "/-1",
      "valkey://127.0.0.1:" + port + " ",
      "valkey://127.0.0.1:\n" + port,
      "unix://",
      "unix://relative/valkey.sock",
      "unix:///tmp/valkey.sock?db=abc",
      "unix:///tmp/valkey.sock?timeout=5",
      // Sentinel URLs: the fixture's port stands in for a Sentinel, so a
      // URL let through would show up as traffic.
      "valkey+sentinel://127.0.0.1:" + port,
      "valkey+sentinel://127.0.0.1:" + port + "/",
      "redis+sentinel://127.0.0.1:" + port + ",127.0.0.1:" + port,
      "valkey+sentinel://127.0.0.1:" + port + ",/emq",
      "valkey+sentinel://127.0.0.1:" + port + "/emq/notadb",
      "valkey+sentinel://127.0.0.1:" + port + "/emq/0/more",
      "valkey+sentinel://127.0.0.1:" + port + "/emq?sentinel_user=u",
      "valkey+sentinel://127.0.0.1:" + port + "/emq?sentinel_password=a&sentinel_password=b",
      "valkey+sentinel://127.0.0.1:" + port + "/emq?sentinel_password=%zz",
      "valkey+sentinel://127.0.0.1:" + port + "/%zz",
      "unix+sentinel:///tmp/valkey.sock/emq",
  };
  for (const auto &url : bad) {
    ClientPtr c(echomq_client_create(nullptr));
    REQUIRE(c);
    s.refused("connect " + printable(url), ECHOMQ_EINVAL, c.get(),
              [&](echomq_client *h) { return echomq_client_connect(h, url.c_str()); });
    CHECK(echomq_client_connected(c.get()) == 0);
  }
  ClientPtr c(echomq_client_create(nullptr));
  s.refused("connect NULL", ECHOMQ_EINVAL, c.get(),
            [&](echomq_client *h) { return echomq_client_connect(h, nullptr); });
  require_verified(s.c.get(), s.q);
}

TEST_CASE("good URL forms connect: valkey, redis, /db, unix socket, ?db=", "[bad_input]") {
  RawValkey raw;
  raw.must({"FLUSHALL"});
  const Endpoint ep = server_endpoint();
  const std::string hostport = ep.host + ":" + std::to_string(ep.port);
  std::vector<std::pair<std::string, int>> urls = {  // URL, the db it selects
      {"valkey://" + hostport, 0},
      {"redis://" + hostport, 0},
      {"valkey://" + hostport + "/3", 3},
  };
  const std::string sock = server_socket_path();
  if (!sock.empty()) {
    urls.emplace_back("unix://" + sock, 0);
    urls.emplace_back("unix://" + sock + "?db=4", 4);
  }
  int n = 0;
  for (const auto &u : urls) {
    INFO("URL " << u.first);
    ClientPtr c = connect_client(nullptr, u.first);
    CHECK(echomq_client_connected(c.get()) == 1);
    EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
    const std::string q = "urlform" + std::to_string(n++);
    enqueue(c.get(), q, "g", "x");
    raw.must({"SELECT", std::to_string(u.second)});
    CHECK(raw.integer({"EXISTS", "emq:{" + q + "}:seq"}) == 1);  // it landed in that db
    raw.must({"SELECT", "0"});
    require_verified(c.get(), q);
  }
  raw.must({"FLUSHALL"});
}

TEST_CASE("a server that is not there is ECONN with a message", "[bad_input]") {
  echomq_client_options opts = ECHOMQ_CLIENT_OPTIONS_INIT;
  opts.connect_timeout_ms = 1000;
  const std::vector<std::string> nowhere = {
      "valkey://127.0.0.1:" + std::to_string(free_port()),
      "unix:///nonexistent/dir/valkey.sock",
  };
  for (const auto &url : nowhere) {
    INFO("URL " << url);
    ClientPtr c(echomq_client_create(&opts));
    REQUIRE(c);
    const int64_t t0 = mono_ms();
    const int rc = echomq_client_connect(c.get(), url.c_str());
    INFO(describe(c.get(), rc));
    CHECK(rc == ECHOMQ_ECONN);
    CHECK(std::string(echomq_client_errmsg(c.get())) != "");
    CHECK(echomq_client_connected(c.get()) == 0);
    CHECK(mono_ms() - t0 < 3000);
    // Calls on it keep reporting the missing connection.
    const int again = echomq_enqueue(c.get(), "q", "g", "x", 1, nullptr, nullptr);
    INFO("enqueue -> " << describe(c.get(), again));
    CHECK(again == ECHOMQ_ECONN);
    CHECK(std::string(echomq_client_errmsg(c.get())) != "");
  }
  // A handle that was never connected reports it too, and never crashes.
  ClientPtr fresh(echomq_client_create(nullptr));
  const int rc = echomq_client_ping(fresh.get());
  INFO("ping on a never-connected handle -> " << describe(fresh.get(), rc));
  CHECK(rc == ECHOMQ_ECONN);
  CHECK(std::string(echomq_client_errmsg(fresh.get())) != "");
}

TEST_CASE("the keyspace and traffic checks do see a write and a command", "[bad_input]") {
  // Guards the checks above: were the snapshots blind, every refusal would pass.
  Seeded s;
  const Traffic traffic_before = s.raw.traffic();
  EMQ_REQUIRE_OK(s.c.get(), echomq_client_ping(s.c.get()));
  CHECK_FALSE(traffic_diff(traffic_before, s.raw.traffic()).empty());

  const Traffic before_write = s.raw.traffic();
  EMQ_REQUIRE_OK(s.c.get(), echomq_set_weight(s.c.get(), s.q.c_str(), "g", 7));
  CHECK_FALSE(traffic_diff(before_write, s.raw.traffic()).empty());
  const Keyspace after = s.raw.snapshot();
  CHECK(after != s.keys);
  CHECK(keyspace_diff(s.keys, after).find("changed: emq:{seeded}:gweight") != std::string::npos);
  require_verified(s.c.get(), s.q);
}
