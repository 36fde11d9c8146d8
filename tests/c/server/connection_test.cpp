// The connection under stress: scripts flushed from the server, the
// connection killed, the server paused, authentication and ACLs. A lost
// connection is reported (or the call succeeds after a reconnect), never
// hidden, and the next call works. These tests disturb the whole server, so
// CTest runs them alone (RUN_SERIAL).
#include "test_env.hpp"

#include "raw_valkey.hpp"

#include <functional>
#include <future>
#include <cstring>

#include <signal.h>

using namespace emqtest;

namespace {

constexpr int64_t kLongLease = 60000;

/// Kills every normal client except the raw connection itself.
void kill_library_connections(RawValkey &raw) {
  const auto others = raw.other_clients();
  REQUIRE_FALSE(others.empty());
  for (long long id : others) raw.command({"CLIENT", "KILL", "ID", std::to_string(id)});
}

/// Removes an ACL user when the test ends, whatever happens.
struct AclUser {
  RawValkey &raw;
  std::string name;
  ~AclUser() { raw.command({"ACL", "DELUSER", name}); }
};

std::string with_user(const std::string &user, const std::string &password) {
  const Endpoint ep = server_endpoint();
  return "valkey://" + user + ":" + password + "@" + ep.host + ":" + std::to_string(ep.port);
}

}  // namespace

TEST_CASE("after SCRIPT FLUSH and FUNCTION FLUSH every operation reloads its script and succeeds", "[noscript]") {
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("noscript");
  // Both caches: the hot scripts run as functions, the rest with EVALSHA.
  const auto flush = [&] {
    raw.must({"SCRIPT", "FLUSH"});
    raw.must({"FUNCTION", "FLUSH"});
  };

  flush();
  const uint64_t id = enqueue(c.get(), q, "g", "one");
  enqueue(c.get(), q, "g", "two");
  enqueue(c.get(), q, "h", "three");
  flush();
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  REQUIRE(echomq_job_id(job.get()) == id);
  flush();
  EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), id, echomq_job_token(job.get()), kLongLease, nullptr));
  flush();
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(job.get()), "again", 0, nullptr));
  flush();
  JobListPtr list = wclaim(c.get(), q, kLongLease, 10);
  REQUIRE(list);
  flush();
  ack(c.get(), q, echomq_job_list_at(list.get(), 0));
  flush();
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", 2));
  flush();
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "h"));
  flush();
  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "h"));
  flush();
  CHECK(stats(c.get(), q).pending == 2);
  flush();
  CHECK(lane(c.get(), q, "g").weight == 2);
  flush();
  {
    echomq_lane_list *l = nullptr;
    EMQ_REQUIRE_OK(c.get(), echomq_lanes(c.get(), q.c_str(), nullptr, 10, &l));
    LaneListPtr lanes(l);
    // h has neither live jobs nor settings now: only g is a known lane.
    REQUIRE(echomq_lane_list_count(lanes.get()) == 1);
    CHECK(std::string(echomq_lane_list_at(lanes.get(), 0)->group) == "g");
  }
  flush();
  {
    echomq_job *n = nullptr;
    JobPtr next = claim(c.get(), q, kLongLease);
    REQUIRE(next);
    flush();
    EMQ_REQUIRE_OK(c.get(), echomq_ack_claim(c.get(), q.c_str(), echomq_job_id(next.get()),
                                             echomq_job_token(next.get()), kLongLease, &n));
    JobPtr last(n);
    REQUIRE(last);
    flush();
    ack(c.get(), q, last.get());
  }
  flush();
  require_verified(c.get(), q);
}

TEST_CASE("a killed connection is reported or reconnected, and the next call works", "[connection]") {
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("killed");
  enqueue(c.get(), q, "g", "before");

  // Each kind of call, right after its connection was killed.
  const std::vector<std::pair<std::string, std::function<int()>>> calls = {
      {"ping", [&] { return echomq_client_ping(c.get()); }},
      {"stats",
       [&] {
         echomq_queue_stats s{};
         s.version = ECHOMQ_QUEUE_STATS_VERSION;
         return echomq_stats(c.get(), q.c_str(), &s);
       }},
      {"enqueue", [&] { return echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, nullptr, nullptr); }},
      {"claim",
       [&] {
         echomq_job *j = nullptr;
         const int rc = echomq_claim(c.get(), q.c_str(), kLongLease, &j);
         if (j != nullptr) {  // settle it so the queue stays tidy
           echomq_ack(c.get(), q.c_str(), echomq_job_id(j), echomq_job_token(j));
           echomq_job_free(j);
         }
         return rc == ECHOMQ_EMPTY ? ECHOMQ_OK : rc;
       }},
  };
  for (const auto &call : calls) {
    kill_library_connections(raw);
    const int rc = call.second();
    INFO(call.first << " after CLIENT KILL -> " << describe(c.get(), rc));
    CHECK((rc == ECHOMQ_OK || rc == ECHOMQ_ECONN || rc == ECHOMQ_ETIMEOUT));
    if (rc != ECHOMQ_OK) CHECK(std::string(echomq_client_errmsg(c.get())) != "");
    // The call after that reconnects and succeeds.
    EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
    CHECK(echomq_client_connected(c.get()) == 1);
  }
  // The queue is intact and usable.
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  ack(c.get(), q, job.get());
  while (JobPtr more = claim(c.get(), q, kLongLease)) ack(c.get(), q, more.get());
  require_verified(c.get(), q);
}

TEST_CASE("a big write into a connection the server closed is ECONN, not SIGPIPE", "[connection]") {
  // A library must not kill its host with SIGPIPE when the server goes away
  // mid-write. This process keeps the default disposition, so a write that
  // raised SIGPIPE would end the test run here.
  struct sigaction now {};
  REQUIRE(sigaction(SIGPIPE, nullptr, &now) == 0);
  REQUIRE(now.sa_handler == SIG_DFL);
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("sigpipe");
  EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
  // One command bigger than any socket buffer (32 jobs of 1 MB in one
  // batch): the kernel sees the reset mid-write.
  const std::string mb((1u << 20) - 64, 'x');
  echomq_batch *b = nullptr;
  REQUIRE(echomq_batch_new(&b) == ECHOMQ_OK);
  std::unique_ptr<echomq_batch, void (*)(echomq_batch *)> batch(b, echomq_batch_free);
  for (int i = 0; i < 32; ++i)
    REQUIRE(echomq_batch_add(b, "g", mb.data(), mb.size()) == ECHOMQ_OK);
  for (int round = 0; round < 3; ++round) {
    kill_library_connections(raw);
    const int rc = echomq_enqueue_batch(c.get(), q.c_str(), b, nullptr);
    INFO("round " << round << " -> " << describe(c.get(), rc));
    CHECK((rc == ECHOMQ_ECONN || rc == ECHOMQ_ETIMEOUT));
    EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
  }
  CHECK(stats(c.get(), q).pending == 0);
}

TEST_CASE("a connection killed under a waiting bclaim is reported promptly", "[connection]") {
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("killwait");
  auto pending = std::async(std::launch::async, [&] {
    echomq_job *j = nullptr;
    const int rc = echomq_bclaim(c.get(), q.c_str(), kLongLease, 15000, &j);
    echomq_job_free(j);
    return std::make_pair(rc, mono_ms());
  });
  sleep_ms(300);
  REQUIRE(pending.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);
  const int64_t killed_at = mono_ms();
  kill_library_connections(raw);
  REQUIRE(pending.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  const auto result = pending.get();
  INFO("bclaim after CLIENT KILL -> " << describe(c.get(), result.first));
  CHECK((result.first == ECHOMQ_ECONN || result.first == ECHOMQ_ETIMEOUT));
  CHECK(std::string(echomq_client_errmsg(c.get())) != "");
  CHECK(result.second - killed_at < 1000);

  enqueue(c.get(), q, "g", "after");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

TEST_CASE("a server that stops answering is ETIMEOUT after command_timeout_ms", "[connection]") {
  RawValkey raw;
  echomq_client_options opts = ECHOMQ_CLIENT_OPTIONS_INIT;
  opts.command_timeout_ms = 200;
  auto c = connect_client(&opts);
  const std::string q = fresh_queue("paused");
  enqueue(c.get(), q, "g", "x");

  const int64_t paused_at = mono_ms();
  raw.must({"CLIENT", "PAUSE", "900", "ALL"});
  echomq_queue_stats s{};
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  const int rc = echomq_stats(c.get(), q.c_str(), &s);
  const int64_t waited = mono_ms() - paused_at;
  INFO("stats while the server is paused -> " << describe(c.get(), rc) << " after " << waited << " ms");
  CHECK(rc == ECHOMQ_ETIMEOUT);
  CHECK(std::string(echomq_client_errmsg(c.get())) != "");
  CHECK(waited >= 150);
  CHECK(waited < 800);

  sleep_ms(paused_at + 1000 - mono_ms());  // the pause is over
  EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

TEST_CASE("AUTH and ACL refusals are ENOPERM, a good user connects", "[connection]") {
  RawValkey raw;
  const std::string user = "emqtest-worker";
  AclUser cleanup{raw, user};
  raw.must({"ACL", "SETUSER", user, "reset", "on", ">right-password", "~*", "&*", "+@all"});

  {
    ClientPtr c = connect_client(nullptr, with_user(user, "right-password"));
    const std::string q = fresh_queue("acl");
    enqueue(c.get(), q, "g", "x");
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    ack(c.get(), q, job.get());
    require_verified(c.get(), q);
  }
  {
    ClientPtr c(echomq_client_create(nullptr));
    const int rc = echomq_client_connect(c.get(), with_user(user, "wrong-password").c_str());
    INFO("wrong password -> " << describe(c.get(), rc));
    CHECK(rc == ECHOMQ_ENOPERM);
    CHECK(std::string(echomq_client_errmsg(c.get())) != "");
    CHECK(echomq_client_connected(c.get()) == 0);
  }
  // A user that may not run scripts is refused as ENOPERM, either at connect
  // (the scripts are loaded there) or at the first operation.
  raw.must({"ACL", "SETUSER", user, "-@scripting"});
  {
    ClientPtr c(echomq_client_create(nullptr));
    int rc = echomq_client_connect(c.get(), with_user(user, "right-password").c_str());
    if (rc == ECHOMQ_OK) {
      rc = echomq_enqueue(c.get(), fresh_queue("acl").c_str(), "g", "x", 1, nullptr, nullptr);
    }
    INFO("scripting denied -> " << describe(c.get(), rc));
    CHECK(rc == ECHOMQ_ENOPERM);
    CHECK(std::string(echomq_client_errmsg(c.get())) != "");
  }
  ClientPtr admin = connect_client();
  require_verified(admin.get(), fresh_queue("acl"));
}

namespace {
/// Calls of command `cmd` ("evalsha", "function|load") the server has run, from INFO commandstats.
long long calls_of(RawValkey &raw, const std::string &cmd) {
  ReplyPtr info = raw.must({"INFO", "commandstats"});
  const std::string text(info->str, info->len), key = "cmdstat_" + cmd + ":calls=";
  const auto at = text.find(key);
  return at == std::string::npos ? 0 : std::stoll(text.substr(at + key.size()));
}
/// Total script calls the server has run (EVALSHA, EVAL and FCALL).
long long script_calls(RawValkey &raw) {
  long long total = 0;
  for (const char *cmd : {"evalsha", "eval", "evalsha_ro", "fcall", "fcall_ro"}) total += calls_of(raw, cmd);
  return total;
}
}  // namespace

TEST_CASE("the hot scripts run as functions, loaded once per server", "[connection]") {
  // enqueue, take and extend are Valkey functions (FCALL): after FUNCTION
  // FLUSH the first call loads each library, and later calls, from any
  // client, call it without loading it again; every other script is EVALSHA.
  RawValkey raw;
  raw.must({"FUNCTION", "FLUSH"});
  auto count = [&](const char *cmd) { return calls_of(raw, cmd); };
  const std::string q = fresh_queue("functions");
  for (int round = 0; round < 2; ++round) {
    auto c = connect_client();
    const long long fcalls = count("fcall"), loads = count("function|load");
    const uint64_t id = enqueue(c.get(), q, "g", "one");
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    REQUIRE(echomq_job_id(job.get()) == id);
    EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), id, echomq_job_token(job.get()), kLongLease, nullptr));
    ack(c.get(), q, job.get());
    // enqueue, claim, extend, ack; the first round also one call per library
    // that was not found (then loaded).
    CHECK(count("fcall") - fcalls == (round == 0 ? 7 : 4));
    CHECK(count("function|load") - loads == (round == 0 ? 3 : 0));
  }
  ReplyPtr libs = raw.must({"FUNCTION", "LIST", "LIBRARYNAME", "echomq_*"});
  CHECK(libs->elements == 3);
}

TEST_CASE("a batch of 2,500 jobs is enqueued by one script call", "[connection]") {
  // The header promises one script call (one round trip), all or nothing.
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("bigbatch");
  BatchPtr batch(echomq_batch_create());
  for (int i = 0; i < 2500; ++i) {
    REQUIRE(echomq_batch_add(batch.get(), ("g" + std::to_string(i % 7)).c_str(), "b", 1) == ECHOMQ_OK);
  }
  const long long before = script_calls(raw);
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), batch.get(), nullptr));
  const long long calls = script_calls(raw) - before;
  CHECK(calls == 1);
  CHECK(stats(c.get(), q).pending == 2500);
  require_verified(c.get(), q);
}

TEST_CASE("a server restart is reported while it is down and healed when it is back", "[connection]") {
  PrivateServer server(free_port());
  server.start();
  echomq_client_options opts = ECHOMQ_CLIENT_OPTIONS_INIT;
  opts.connect_timeout_ms = 500;
  auto c = connect_client(&opts, server.url());
  const std::string q = fresh_queue("restart");
  enqueue(c.get(), q, "g", "before");

  server.stop();
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int64_t t0 = mono_ms();
    const int rc = echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, nullptr, nullptr);
    INFO("enqueue #" << attempt << " with the server down -> " << describe(c.get(), rc));
    CHECK((rc == ECHOMQ_ECONN || rc == ECHOMQ_ETIMEOUT));
    CHECK(std::string(echomq_client_errmsg(c.get())) != "");
    CHECK(mono_ms() - t0 < 2000);
  }
  CHECK(echomq_client_connected(c.get()) == 0);

  server.start();  // empty: no data, no scripts loaded
  EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
  CHECK_FALSE(claim(c.get(), q, kLongLease));  // the old data died with the server
  enqueue(c.get(), q, "g", "after");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  CHECK(payload_of(job.get()) == "after");
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}
