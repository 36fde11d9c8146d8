// echomq_doctor against real servers: the fixture server (no persistence, no
// replica), a private server with an evicting policy and the AOF on, and
// the documented ACL users.
#include "test_env.hpp"

#include "raw_valkey.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace emqtest;

namespace {

struct Doctor {
  std::vector<std::string> lines;
  int worst = -1;
};

Doctor doctor(echomq_client *c, const std::string &q, const char *user = nullptr) {
  echomq_report *r = nullptr;
  Doctor d;
  EMQ_REQUIRE_OK(c, echomq_doctor(c, q.c_str(), user, &r, &d.worst));
  for (size_t i = 0; i < echomq_report_count(r); ++i) d.lines.push_back(echomq_report_at(r, i));
  echomq_report_free(r);
  REQUIRE(d.lines.size() == 6);
  const char *checks[] = {"version", "memory", "persistence", "replicas", "cluster", "acl"};
  int worst = ECHOMQ_DOCTOR_OK;
  for (size_t i = 0; i < 6; ++i) {
    const std::string &l = d.lines[i];
    INFO(l);
    const auto sp = l.find(' ');
    const std::string level = l.substr(0, sp);
    REQUIRE((level == "ok" || level == "warn" || level == "fail"));
    CHECK(l.compare(sp + 1, std::strlen(checks[i]) + 1, std::string(checks[i]) + ":") == 0);
    worst = std::max(worst, level == "ok" ? 0 : level == "warn" ? 1 : 2);
  }
  CHECK(d.worst == worst);
  return d;
}

bool starts(const std::string &s, const std::string &prefix) { return s.rfind(prefix, 0) == 0; }

/// Removes an ACL user when the test ends.
struct AclUser {
  RawValkey &raw;
  std::string name;
  ~AclUser() { raw.command({"ACL", "DELUSER", name}); }
};

}  // namespace

TEST_CASE("doctor rates the fixture server: version, no persistence, no replica", "[doctor]") {
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("doctor");
  const Doctor d = doctor(c.get(), q);

  // The version line, judged here from INFO and COMMAND INFO on their own.
  ReplyPtr info = raw.must({"INFO", "server"});
  const std::string text(info->str, info->len);
  const bool valkey = text.find("valkey_version:") != std::string::npos;
  const std::string field = valkey ? "valkey_version:" : "redis_version:";
  const auto at = text.find(field);
  REQUIRE(at != std::string::npos);
  int major = 0, minor = 0, patch = 0;
  REQUIRE(std::sscanf(text.c_str() + at + field.size(), "%d.%d.%d", &major, &minor, &patch) == 3);
  ReplyPtr waitaof = raw.must({"COMMAND", "INFO", "WAITAOF"});
  REQUIRE(waitaof->elements == 1);
  const bool lacks_waitaof = waitaof->element[0]->type == REDIS_REPLY_NIL;
  INFO(d.lines[0]);
  const std::string version = std::to_string(major) + "." + std::to_string(minor) + "." +
                              std::to_string(patch);
  if (valkey) {
    const bool fixed = major > 8 || (major == 8 && (minor >= 2 || (minor == 1 && patch >= 4) ||
                                                    (minor == 0 && patch >= 6)));
    CHECK(starts(d.lines[0], (fixed && !lacks_waitaof ? "ok version: valkey " : "warn version: valkey ") + version));
  } else {
    // Redis: named with its version, never matched against Valkey's releases.
    CHECK(starts(d.lines[0], "warn version: redis " + version + " is not Valkey"));
  }
  CHECK(d.lines[0].find("CVE-2025-49844") != std::string::npos);
  // A missing feature is named with what it costs (Redis 7.0: no WAITAOF).
  CHECK((d.lines[0].find("lacks WAITAOF (wait_aof calls answer UNCONFIRMED") != std::string::npos) ==
        lacks_waitaof);

  CHECK(starts(d.lines[1], "ok memory: noeviction"));
  CHECK(starts(d.lines[2], "warn persistence: none"));
  CHECK(starts(d.lines[3], "warn replicas: none connected"));
  CHECK(starts(d.lines[4], "ok cluster: standalone"));
  CHECK(starts(d.lines[5], "ok acl: user 'default' may enqueue, claim and settle, read"));
  CHECK(d.worst == ECHOMQ_DOCTOR_WARN);
  require_verified(c.get(), q);  // doctor wrote nothing
  CHECK(raw.queue_snapshot(q).empty());
}

TEST_CASE("doctor warns about an evicting policy and sees the AOF", "[doctor]") {
  PrivateServer server(free_port(),
                       "--maxmemory 64mb --maxmemory-policy allkeys-lru --appendonly yes");
  server.start();
  ClientPtr c = connect_client(nullptr, server.url());
  const Doctor d = doctor(c.get(), fresh_queue("doctor-lru"));
  INFO(d.lines[1] << "\n" << d.lines[2]);
  CHECK(starts(d.lines[1], "warn memory: maxmemory-policy is allkeys-lru"));
  CHECK(starts(d.lines[2], "ok persistence: AOF on (appendfsync everysec)"));
}

TEST_CASE("doctor names what an ACL user may and may not run on a queue", "[doctor]") {
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("doctor-acl");
  AclUser producer{raw, "emq-doctor-producer"};
  raw.must({"ACL", "SETUSER", producer.name, "reset", "on", ">pw", "~emq:*", "+ping",
            "+script|load", "+evalsha", "+time", "+exists", "+hdel", "+hexists", "+hget",
            "+hincrby", "+hmget", "+hset", "+incrby", "+llen", "+lrem", "+rpush",
            "+sismember", "+smismember", "+type", "+zadd", "+zcard", "+zpopmin", "+zrangebyscore", "+zrem"});
  Doctor d = doctor(c.get(), q, producer.name.c_str());
  INFO(d.lines[5]);
  CHECK(starts(d.lines[5], "ok acl: user 'emq-doctor-producer' may enqueue; may not claim and "
                           "settle (missing blpop "));
  CHECK(d.lines[5].find("lmove") != std::string::npos);

  // Keys of another queue only: nothing on this one.
  raw.must({"ACL", "SETUSER", producer.name, "resetkeys", "~emq:{elsewhere}:*"});
  d = doctor(c.get(), q, producer.name.c_str());
  INFO(d.lines[5]);
  CHECK(starts(d.lines[5], "fail acl: user 'emq-doctor-producer' may run no operation"));
  CHECK(d.worst == ECHOMQ_DOCTOR_FAIL);

  // A connection that may not run ACL DRYRUN cannot check, and says so.
  raw.must({"ACL", "SETUSER", producer.name, "resetkeys", "~emq:*", "+info"});
  const Endpoint ep = server_endpoint();
  ClientPtr limited = connect_client(nullptr, "valkey://" + producer.name + ":pw@" + ep.host +
                                                  ":" + std::to_string(ep.port));
  d = doctor(limited.get(), q);
  INFO(d.lines[5]);
  CHECK(starts(d.lines[5], "warn acl: cannot check the permissions of this connection's user"));
}

TEST_CASE("doctor refuses bad arguments", "[doctor]") {
  auto c = connect_client();
  echomq_report *r = nullptr;
  int worst = -1;
  CHECK(echomq_doctor(c.get(), "bad{queue}", nullptr, &r, &worst) == ECHOMQ_EINVAL);
  CHECK(r == nullptr);
  CHECK(echomq_doctor(c.get(), "q", "", &r, &worst) == ECHOMQ_EINVAL);
  CHECK(echomq_doctor(c.get(), "q", nullptr, nullptr, &worst) == ECHOMQ_EINVAL);
  CHECK(echomq_doctor(nullptr, "q", nullptr, &r, &worst) == ECHOMQ_EINVAL);
}
