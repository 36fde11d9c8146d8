// The ACL users of docs/operations.md, created on the test server exactly as
// the docs write them (this test reads the lines from the docs): each role's
// calls work, the calls of other roles are refused with ECHOMQ_ENOPERM and
// change nothing. Also: a command denied INSIDE a script is ENOPERM too.
#include "test_env.hpp"

#include "raw_valkey.hpp"
#include "schedule_helpers.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;
const char kPassword[] = "acl-test-password";

/// The `ACL SETUSER emq-<role> ...` lines of docs/operations.md, by role.
std::map<std::string, std::vector<std::string>> documented_users() {
  std::ifstream in(std::string(EMQ_SOURCE_DIR) + "/docs/operations.md");
  REQUIRE(in.good());
  std::map<std::string, std::vector<std::string>> users;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("ACL SETUSER emq-", 0) != 0) continue;
    std::istringstream words(line);
    std::vector<std::string> argv;
    for (std::string w; words >> w;) argv.push_back(w == ">PASSWORD" ? std::string(">") + kPassword : w);
    users[argv.at(2).substr(4)] = argv;
  }
  return users;
}

/// Creates the documented user for `role`; deletes it when the test ends.
struct DocumentedUser {
  RawValkey &raw;
  std::string name;
  DocumentedUser(RawValkey &r, const std::string &role) : raw(r), name("emq-" + role) {
    auto users = documented_users();
    INFO("docs/operations.md has no ACL line for role " << role);
    REQUIRE(users.count(role) == 1);
    raw.command({"ACL", "DELUSER", name});
    raw.must(users[role]);
  }
  ~DocumentedUser() { raw.command({"ACL", "DELUSER", name}); }
  ClientPtr connect() const {
    const Endpoint ep = server_endpoint();
    return connect_client(nullptr, "valkey://" + name + ":" + kPassword + "@" + ep.host + ":" +
                                       std::to_string(ep.port));
  }
};

/// Asserts that `call` is refused with ENOPERM and leaves queue q untouched.
template <class F>
void require_refused(RawValkey &raw, echomq_client *c, const std::string &q, const char *what,
                     F &&call) {
  const Keyspace before = raw.queue_snapshot(q);
  const int rc = call();
  INFO(what << " -> " << describe(c, rc));
  CHECK(rc == ECHOMQ_ENOPERM);
  CHECK(keyspace_diff(before, raw.queue_snapshot(q)) == "");
}

/// A queue with a few pending jobs and one leased job (returned).
JobPtr seed(echomq_client *admin, const std::string &q) {
  enqueue(admin, q, "a", "1");
  enqueue(admin, q, "b", "2");
  enqueue(admin, q, "a", "3");
  return claim(admin, q, kLease);
}

}  // namespace

TEST_CASE("the documented producer enqueues and can do nothing else", "[acl]") {
  RawValkey raw;
  ClientPtr admin = connect_client();
  DocumentedUser user(raw, "producer");
  ClientPtr c = user.connect();
  const std::string q = fresh_queue("acl-producer");
  JobPtr held = seed(admin.get(), q);

  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "p", "x", 1, nullptr, nullptr));
  BatchPtr batch(echomq_batch_create());
  REQUIRE(echomq_batch_add(batch.get(), "p", "y", 1) == ECHOMQ_OK);
  REQUIRE(echomq_batch_add(batch.get(), "r", "z", 1) == ECHOMQ_OK);
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), batch.get(), nullptr));
  echomq_enqueue_options delayed = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  delayed.delay_ms = 60000;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "p", "d", 1, &delayed, nullptr));

  // Claim runs (EVALSHA is allowed) and is stopped inside the script: the
  // server words that "ERR ACL failure in script", which is ENOPERM too.
  require_refused(raw, c.get(), q, "claim", [&] {
    echomq_job *j = nullptr;
    return echomq_claim(c.get(), q.c_str(), kLease, &j);
  });
  require_refused(raw, c.get(), q, "ack", [&] {
    return echomq_ack(c.get(), q.c_str(), echomq_job_id(held.get()), echomq_job_token(held.get()));
  });
  require_refused(raw, c.get(), q, "stats", [&] {
    echomq_queue_stats s{};
    s.version = ECHOMQ_QUEUE_STATS_VERSION;
    return echomq_stats(c.get(), q.c_str(), &s);
  });
  require_verified(admin.get(), q);
}

TEST_CASE("the documented worker claims and settles and can do nothing else", "[acl]") {
  RawValkey raw;
  ClientPtr admin = connect_client();
  DocumentedUser user(raw, "worker");
  ClientPtr c = user.connect();
  const std::string q = fresh_queue("acl-worker");
  for (int i = 0; i < 8; ++i) enqueue(admin.get(), q, "g" + std::to_string(i % 3), "job");

  JobPtr one = claim(c.get(), q, kLease);
  REQUIRE(one);
  int64_t until = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), echomq_job_id(one.get()),
                                        echomq_job_token(one.get()), kLease, &until));
  CHECK(until > 0);
  echomq_job *next = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_ack_claim(c.get(), q.c_str(), echomq_job_id(one.get()),
                                           echomq_job_token(one.get()), kLease, &next));
  JobPtr second(next);
  REQUIRE(second);
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), echomq_job_id(second.get()),
                                      echomq_job_token(second.get()), "retry", 0, &outcome));
  JobListPtr list = wclaim(c.get(), q, kLease, 5);
  REQUIRE(list);
  std::vector<uint64_t> ids, tokens;
  for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i) {
    ids.push_back(echomq_job_id(echomq_job_list_at(list.get(), i)));
    tokens.push_back(echomq_job_token(echomq_job_list_at(list.get(), i)));
  }
  size_t acked = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_ack_many(c.get(), q.c_str(), ids.data(), tokens.data(), ids.size(),
                                          nullptr, &acked));
  CHECK(acked == ids.size());
  echomq_job *b = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_bclaim(c.get(), q.c_str(), kLease, 1000, &b));
  JobPtr blocked(b);
  ack(c.get(), q, blocked.get());
  // A second ack and an extend of a settled job are stale, never a refused
  // command: telling stale from not found reads the id counter.
  CHECK(echomq_ack(c.get(), q.c_str(), echomq_job_id(blocked.get()), echomq_job_token(blocked.get())) ==
        ECHOMQ_ESTALE);
  CHECK(echomq_extend(c.get(), q.c_str(), echomq_job_id(blocked.get()), echomq_job_token(blocked.get()), kLease,
                      nullptr) == ECHOMQ_ESTALE);

  require_refused(raw, c.get(), q, "enqueue", [&] {
    return echomq_enqueue(c.get(), q.c_str(), "g", "x", 1, nullptr, nullptr);
  });
  require_refused(raw, c.get(), q, "pause", [&] { return echomq_pause(c.get(), q.c_str(), "g0"); });
  require_refused(raw, c.get(), q, "verify", [&] {
    echomq_report *r = nullptr;
    return echomq_verify(c.get(), q.c_str(), &r);
  });
  require_verified(admin.get(), q);
}

/// The libraries of the server whose names start with `prefix`.
static std::string libraries(RawValkey &raw, const std::string &prefix) {
  ReplyPtr r = raw.must({"FUNCTION", "LIST", "LIBRARYNAME", prefix + "*"});
  return std::to_string(r->elements);
}

TEST_CASE("a worker without FCALL or FUNCTION LOAD runs the hot scripts with EVALSHA", "[acl]") {
  // The documented worker without `+fcall +function|load`, then without
  // `+function|load` alone (it may call a function but not load one): with
  // no library on the server, both claim, extend and settle all the same.
  for (const auto &drop :
       {std::vector<std::string>{"+fcall", "+function|load"}, std::vector<std::string>{"+function|load"}}) {
    RawValkey raw;
    ClientPtr admin = connect_client();
    DocumentedUser user(raw, "worker");
    std::vector<std::string> argv = documented_users()["worker"];
    for (const auto &d : drop) argv.erase(std::remove(argv.begin(), argv.end(), d), argv.end());
    raw.must({"ACL", "DELUSER", user.name});
    raw.must(argv);
    const std::string q = fresh_queue("acl-nofunctions");
    for (int i = 0; i < 4; ++i) enqueue(admin.get(), q, "g" + std::to_string(i % 2), "job");
    raw.must({"FUNCTION", "FLUSH"});
    ClientPtr c = user.connect();

    JobPtr one = claim(c.get(), q, kLease);
    REQUIRE(one);
    EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), echomq_job_id(one.get()),
                                          echomq_job_token(one.get()), kLease, nullptr));
    ack(c.get(), q, one.get());
    echomq_job_list *raw_list = nullptr;
    EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), q.c_str(), kLease, 5, 0, &raw_list));
    JobListPtr list(raw_list);
    CHECK(echomq_job_list_count(list.get()) == 3);
    for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i) ack(c.get(), q, echomq_job_list_at(list.get(), i));
    CHECK(libraries(raw, "echomq_take_") == "0");
    CHECK(libraries(raw, "echomq_extend_") == "0");
    CHECK(stats(admin.get(), q).acked_total == 4);
    require_verified(admin.get(), q);
  }
}

TEST_CASE("the documented observer reads everything and writes nothing", "[acl]") {
  RawValkey raw;
  ClientPtr admin = connect_client();
  DocumentedUser user(raw, "observer");
  ClientPtr c = user.connect();
  const std::string q = fresh_queue("acl-observer");
  JobPtr held = seed(admin.get(), q);

  echomq_queue_stats s{};
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  EMQ_REQUIRE_OK(c.get(), echomq_stats(c.get(), q.c_str(), &s));
  CHECK(s.pending == 2);
  CHECK(s.leased == 1);
  echomq_lane_info li{};
  li.version = ECHOMQ_LANE_INFO_VERSION;
  EMQ_REQUIRE_OK(c.get(), echomq_lane(c.get(), q.c_str(), "a", &li));
  CHECK(li.depth + li.active == 2);
  echomq_lane_list *lanes = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_lanes(c.get(), q.c_str(), nullptr, 100, &lanes));
  LaneListPtr lanes_owner(lanes);
  CHECK(echomq_lane_list_count(lanes) == 2);
  echomq_job_list *dead = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_dead(c.get(), q.c_str(), 0, 10, &dead));
  JobListPtr dead_owner(dead);
  echomq_report *report = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_verify(c.get(), q.c_str(), &report));
  ReportPtr report_owner(report);
  CHECK(echomq_report_count(report) == 0);
  // A repair's dry run is a read: allowed; applying it is not.
  raw.must({"RPUSH", "emq:{" + q + "}:ring", "a"});  // a duplicate ring entry
  echomq_report *plan = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_repair(c.get(), q.c_str(), 0, nullptr, 1000, &plan));
  ReportPtr plan_owner(plan);
  CHECK(echomq_report_count(plan) == 1);
  require_refused(raw, c.get(), q, "repair", [&] {
    echomq_report *r = nullptr;
    const int rc = echomq_repair(c.get(), q.c_str(), 1, nullptr, 1000, &r);
    echomq_report_free(r);
    return rc;
  });
  EMQ_REQUIRE_OK(admin.get(), echomq_repair(admin.get(), q.c_str(), 1, nullptr, 1000, &plan));
  echomq_report_free(plan);

  require_refused(raw, c.get(), q, "enqueue", [&] {
    return echomq_enqueue(c.get(), q.c_str(), "a", "x", 1, nullptr, nullptr);
  });
  require_refused(raw, c.get(), q, "claim", [&] {
    echomq_job *j = nullptr;
    return echomq_claim(c.get(), q.c_str(), kLease, &j);
  });
  require_refused(raw, c.get(), q, "ack", [&] {
    return echomq_ack(c.get(), q.c_str(), echomq_job_id(held.get()), echomq_job_token(held.get()));
  });
  require_refused(raw, c.get(), q, "set_weight",
                  [&] { return echomq_set_weight(c.get(), q.c_str(), "a", 3); });
  uint64_t moved = 0;
  require_refused(raw, c.get(), q, "redrive_all",
                  [&] { return echomq_redrive_all(c.get(), q.c_str(), &moved); });
  require_verified(admin.get(), q);
}

TEST_CASE("the documented operator changes lanes and redrives, and cannot enqueue or claim",
          "[acl]") {
  RawValkey raw;
  ClientPtr admin = connect_client();
  DocumentedUser user(raw, "operator");
  ClientPtr c = user.connect();
  const std::string q = fresh_queue("acl-operator");
  echomq_enqueue_options once = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  once.max_attempts = 1;
  enqueue(admin.get(), q, "a", "dies", &once);
  JobPtr doomed = claim(admin.get(), q, kLease);
  REQUIRE(doomed);
  EMQ_REQUIRE_OK(admin.get(), echomq_fail(admin.get(), q.c_str(), echomq_job_id(doomed.get()),
                                          echomq_job_token(doomed.get()), "boom", 0, nullptr));
  seed(admin.get(), q);

  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "a", 3));
  EMQ_REQUIRE_OK(c.get(), echomq_clear_weight(c.get(), q.c_str(), "a"));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "b", 2));
  EMQ_REQUIRE_OK(c.get(), echomq_clear_limit(c.get(), q.c_str(), "b"));
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "a"));
  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "a"));
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_weight(c.get(), q.c_str(), 2));
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_limit(c.get(), q.c_str(), 5));
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_max_attempts(c.get(), q.c_str(), 4));
  uint64_t moved = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_redrive_all(c.get(), q.c_str(), &moved));
  CHECK(moved == 1);
  echomq_report *report = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_verify(c.get(), q.c_str(), &report));
  ReportPtr report_owner(report);
  raw.must({"HSET", "emq:{" + q + "}:gactive", "b", "-1"});  // an underflow
  EMQ_REQUIRE_OK(c.get(), echomq_repair(c.get(), q.c_str(), 1, nullptr, 1000, &report));
  ReportPtr repaired(report);
  CHECK(echomq_report_count(report) == 1);

  require_refused(raw, c.get(), q, "enqueue", [&] {
    return echomq_enqueue(c.get(), q.c_str(), "a", "x", 1, nullptr, nullptr);
  });
  require_refused(raw, c.get(), q, "claim", [&] {
    echomq_job *j = nullptr;
    return echomq_claim(c.get(), q.c_str(), kLease, &j);
  });
  require_verified(admin.get(), q);
}

TEST_CASE("the documented producer and worker use a sharded queue by its name", "[acl][shards]") {
  RawValkey raw;
  ClientPtr admin = connect_client();
  const std::string q = fresh_queue("acl-sharded");
  EMQ_REQUIRE_OK(admin.get(), echomq_shards_create(admin.get(), q.c_str(), 3));
  DocumentedUser producer(raw, "producer"), worker(raw, "worker");
  ClientPtr p = producer.connect(), w = worker.connect();
  uint64_t id = 0;
  EMQ_REQUIRE_OK(p.get(), echomq_enqueue(p.get(), q.c_str(), "tenant", "x", 1, nullptr, &id));
  echomq_job *j = nullptr;
  EMQ_REQUIRE_OK(w.get(), echomq_claim(w.get(), q.c_str(), kLease, &j));
  JobPtr job(j);
  CHECK(echomq_job_id(job.get()) == id);
  EMQ_REQUIRE_OK(w.get(), echomq_ack(w.get(), q.c_str(), id, echomq_job_token(job.get())));
  CHECK(stats(admin.get(), q).acked_total == 1);
  require_verified(admin.get(), q);
}

TEST_CASE("the documented roles run schedules: the operator sets them, a worker's claims fire them, "
          "the observer reads them", "[acl][schedules]") {
  RawValkey raw;
  ClientPtr admin = connect_client();
  DocumentedUser op_user(raw, "operator"), worker_user(raw, "worker"), obs_user(raw, "observer");
  ClientPtr op = op_user.connect(), worker = worker_user.connect(), obs = obs_user.connect();
  const std::string q = fresh_queue("acl-sched");
  enqueue(admin.get(), q, "seed", "x");  // the queue exists
  JobPtr seeded = claim(admin.get(), q, kLease);
  ack(admin.get(), q, seeded.get());

  echomq_schedule_options o = every_options(100, "ticks");
  o.keep_ms = 60000;  // a job's own retention too (the outcome paths)
  EMQ_REQUIRE_OK(op.get(), echomq_schedule_upsert(op.get(), q.c_str(), "s", &o, nullptr, nullptr));
  sleep_until_server(admin.get(), q, get_schedule(admin.get(), q, "s").next_at_ms + 1);
  JobPtr j = claim(worker.get(), q, kLease);  // fires the tick, then claims its job
  REQUIRE(j);
  ack(worker.get(), q, j.get());
  CHECK(get_schedule(obs.get(), q, "s").runs == 1);
  CHECK(next_ticks(obs.get(), q, "s", 2).size() == 2);
  echomq_report *r = nullptr;
  EMQ_REQUIRE_OK(obs.get(), echomq_verify(obs.get(), q.c_str(), &r));
  echomq_report_free(r);
  EMQ_REQUIRE_OK(op.get(), echomq_schedule_pause(op.get(), q.c_str(), "s"));
  EMQ_REQUIRE_OK(op.get(), echomq_schedule_resume(op.get(), q.c_str(), "s"));
  EMQ_REQUIRE_OK(op.get(), echomq_schedule_remove(op.get(), q.c_str(), "s"));

  // (The worker's commands would let it upsert too: an ACL allows commands,
  // not scripts. docs/operations.md says so.)
  require_refused(raw, obs.get(), q, "upsert by an observer", [&] {
    return echomq_schedule_upsert(obs.get(), q.c_str(), "o", &o, nullptr, nullptr);
  });
  require_verified(admin.get(), q);
}
