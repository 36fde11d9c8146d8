// No half writes: a call that the server refuses part-way (here: a key of
// the queue clobbered with the wrong type, so a command inside the script
// fails with WRONGTYPE) must have changed nothing. Lua scripts do not roll
// back, so every script has to do everything that can fail before its first
// write. For each (wrong-typed key, call) pair this test builds a fresh
// queue, plants the key, snapshots every key of the queue (DUMP), makes the
// call and, if the call was refused, compares the snapshots.
#include "test_env.hpp"

#include "raw_valkey.hpp"

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

/// The queue every case starts from: lanes a and b with pending jobs, one
/// job of lane a leased (returned), a delayed job and a dead job.
struct Seeded {
  uint64_t leased_id = 0;
  uint64_t leased_token = 0;
};

Seeded seed(echomq_client *c, const std::string &q) {
  echomq_enqueue_options once = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  once.max_attempts = 1;
  enqueue(c, q, "d", "dies", &once);
  JobPtr doomed = claim(c, q, kLease);
  REQUIRE(doomed);
  EMQ_REQUIRE_OK(c, echomq_fail(c, q.c_str(), echomq_job_id(doomed.get()),
                                echomq_job_token(doomed.get()), "boom", 0, nullptr));
  for (const char *g : {"a", "b", "a", "b", "a"}) enqueue(c, q, g, "x");
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 3600000;
  enqueue(c, q, "a", "later", &later);
  JobPtr held = claim(c, q, kLease);
  REQUIRE(held);
  REQUIRE(std::string(echomq_job_group(held.get())) == "a");
  return Seeded{echomq_job_id(held.get()), echomq_job_token(held.get())};
}

/// Claims every pending job (lanes a, b and `lane`) and acks all but the
/// one of `lane`, which it leaves leased: acking that one then leaves the lane
/// idle, or frees it from a ceiling of 1 when it has a job left.
Seeded hold_only(echomq_client *c, const std::string &q, const std::string &lane) {
  echomq_job_list *l = nullptr;
  EMQ_REQUIRE_OK(c, echomq_claim_batch(c, q.c_str(), kLease, 100, 0, &l));
  JobListPtr all(l);
  Seeded kept;
  for (size_t i = 0; i < echomq_job_list_count(l); ++i) {
    const echomq_job *j = echomq_job_list_at(l, i);
    if (std::string(echomq_job_group(j)) == lane && kept.leased_id == 0)
      kept = Seeded{echomq_job_id(j), echomq_job_token(j)};
    else
      ack(c, q, j);
  }
  REQUIRE(kept.leased_id != 0);
  return kept;
}

/// The job a call's `prepare` left for its `run` (the seeded one is busy).
Seeded prepared;

struct Call {
  const char *script;
  std::function<int(echomq_client *, const std::string &, const Seeded &)> run;
  /// Runs before the key is planted (and before the snapshot).
  std::function<void(echomq_client *, const std::string &)> prepare = nullptr;
};

const std::vector<Call> &calls() {
  static const std::vector<Call> all = {
      {"enqueue", [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_enqueue(c, q.c_str(), "a", "new", 3, nullptr, nullptr);
       }},
      {"claim", [](echomq_client *c, const std::string &q, const Seeded &) {
         echomq_job *j = nullptr;
         const int rc = echomq_claim(c, q.c_str(), kLease, &j);
         echomq_job_free(j);
         return rc;
       }},
      {"claim (wclaim)", [](echomq_client *c, const std::string &q, const Seeded &) {
         echomq_job_list *l = nullptr;
         const int rc = echomq_wclaim(c, q.c_str(), kLease, 5, &l);
         echomq_job_list_free(l);
         return rc;
       }},
      {"ack", [](echomq_client *c, const std::string &q, const Seeded &s) {
         return echomq_ack(c, q.c_str(), s.leased_id, s.leased_token);
       }},
      {"ack (its lane left idle)",
       [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_ack(c, q.c_str(), prepared.leased_id, prepared.leased_token);
       },
       [](echomq_client *c, const std::string &q) {
         enqueue(c, q, "i", "only");
         prepared = hold_only(c, q, "i");
       }},
      {"ack (its lane freed from its ceiling)",
       [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_ack(c, q.c_str(), prepared.leased_id, prepared.leased_token);
       },
       [](echomq_client *c, const std::string &q) {
         EMQ_REQUIRE_OK(c, echomq_set_limit(c, q.c_str(), "f", 1));
         enqueue(c, q, "f", "first");
         enqueue(c, q, "f", "second");
         prepared = hold_only(c, q, "f");
       }},
      {"ack then claim (settle_claim)", [](echomq_client *c, const std::string &q, const Seeded &s) {
         echomq_settle *st = echomq_settle_create();
         REQUIRE(st);
         REQUIRE(echomq_settle_ack(st, s.leased_id, s.leased_token) == ECHOMQ_OK);
         echomq_job_list *l = nullptr;
         const int rc = echomq_settle_claim(c, q.c_str(), st, kLease, 5, 0, &l);
         echomq_job_list_free(l);
         echomq_settle_free(st);
         return rc;
       }},
      {"ackmany", [](echomq_client *c, const std::string &q, const Seeded &s) {
         size_t acked = 0;
         return echomq_ack_many(c, q.c_str(), &s.leased_id, &s.leased_token, 1, nullptr, &acked);
       }},
      {"fail (retry now)", [](echomq_client *c, const std::string &q, const Seeded &s) {
         return echomq_fail(c, q.c_str(), s.leased_id, s.leased_token, "again", 0, nullptr);
       }},
      {"fail (retry later)", [](echomq_client *c, const std::string &q, const Seeded &s) {
         return echomq_fail(c, q.c_str(), s.leased_id, s.leased_token, "later", 60000, nullptr);
       }},
      {"extend", [](echomq_client *c, const std::string &q, const Seeded &s) {
         return echomq_extend(c, q.c_str(), s.leased_id, s.leased_token, kLease, nullptr);
       }},
      {"claim (recovering an expired lease)",
       [](echomq_client *c, const std::string &q, const Seeded &) {
         echomq_job *j = nullptr;
         const int rc = echomq_claim(c, q.c_str(), kLease, &j);
         echomq_job_free(j);
         return rc;
       },
       [](echomq_client *c, const std::string &q) {
         // A job leased for 1 ms expires: the claim recovers it first.
         JobPtr j = claim(c, q, 1);
         REQUIRE(j);
         sleep_ms(5);
       }},
      {"claim (a batch of turns)", [](echomq_client *c, const std::string &q, const Seeded &) {
         echomq_job_list *l = nullptr;
         const int rc = echomq_claim_batch(c, q.c_str(), kLease, 5, 0, &l);
         echomq_job_list_free(l);
         return rc;
       }},
      {"pause", [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_pause(c, q.c_str(), "a");
       }},
      {"limit", [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_set_limit(c, q.c_str(), "b", 1);
       }},
      {"weight", [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_set_weight(c, q.c_str(), "b", 2);
       }},
      {"throttle", [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_throttle(c, q.c_str(), "b", 60000);
       }},
      {"rate", [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_set_rate(c, q.c_str(), "b", 1, 60000, 1);
       }},
      {"cap", [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_set_cap(c, q.c_str(), "b", 10);
       }},
      {"redrive", [](echomq_client *c, const std::string &q, const Seeded &) {
         return echomq_redrive_all(c, q.c_str(), nullptr);
       }},
      {"repair", [](echomq_client *c, const std::string &q, const Seeded &) {
         echomq_report *r = nullptr;
         const int rc = echomq_repair(c, q.c_str(), 1, nullptr, 1000, &r);
         echomq_report_free(r);
         return rc;
       }},
  };
  return all;
}

/// Keys (suffixes after "emq:{q}:") to clobber with a string. The per-lane
/// keys are those of the lanes the calls above touch.
const std::vector<std::string> &clobbered() {
  static const std::vector<std::string> keys = {
      "ring",   "gweight", "glimit",  "gactive", "paused", "leases",        "delayed",
      "dead",   "lanes",   "glive",   "gserved", "stats",  "config",        "g:a:pending",
      "g:b:pending", "jobs",    "att",     "grate",   "gbucket", "throttled", "gcap",
      "g:f:pending", "wake",
  };
  return keys;
}

}  // namespace

// The half writes the scripts still make (call, clobbered key), as found
// by this test; claim, wclaim, ack, ackmany and fail all run lua/take.lua. The script bodies are being reworked to check key types
// before their first write (lua/includes/typeGuard.lua is the helper); each
// fix must remove its line here, and any new half write fails the test.
const std::set<std::string> kKnownHalfWrites = {};

TEST_CASE("a call refused part-way by a wrong-typed key changes nothing", "[half_write]") {
  RawValkey raw;
  auto c = connect_client();
  std::set<std::string> found;
  std::ostringstream detail;
  int refused = 0;
  for (const std::string &suffix : clobbered()) {
    for (const Call &call : calls()) {
      const std::string q = fresh_queue("halfwrite");
      const Seeded s = seed(c.get(), q);
      if (call.prepare) call.prepare(c.get(), q);
      const std::string key = "emq:{" + q + "}:" + suffix;
      raw.must({"DEL", key});
      raw.must({"SET", key, "clobbered"});
      const Keyspace before = raw.queue_snapshot(q);
      const int rc = call.run(c.get(), q, s);
      if (rc == ECHOMQ_OK || rc == ECHOMQ_EMPTY) continue;  // the key was not in its way
      ++refused;
      INFO(call.script << " with " << suffix << " clobbered -> " << describe(c.get(), rc));
      CHECK(rc == ECHOMQ_ESERVER);  // WRONGTYPE
      const std::string diff = keyspace_diff(before, raw.queue_snapshot(q));
      if (diff.empty()) continue;
      const std::string name = std::string(call.script) + " :" + suffix;
      found.insert(name);
      if (!kKnownHalfWrites.count(name))
        detail << "\n- NEW: " << name << " (" << echomq_client_errmsg(c.get()) << ") wrote:\n"
               << diff;
    }
  }
  for (const std::string &known : kKnownHalfWrites)
    if (!found.count(known)) detail << "\n- FIXED (remove it from kKnownHalfWrites): " << known;
  INFO("half writes that differ from the known list:" << detail.str());
  CHECK(found == kKnownHalfWrites);
  CHECK(refused > 0);  // the planted keys did get in the way
}

namespace {
std::string source_file(const std::string &path) {
  std::ifstream in(std::string(EMQ_SOURCE_DIR) + "/" + path);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

TEST_CASE("the typeGuard include passes sound keys and names a wrong-typed one",
          "[half_write]") {
  // The include as a script would use it, after the generated prelude's rcall.
  const std::string script = "local rcall = redis.call\n" +
                             source_file("lua/includes/typeGuard.lua") +
                             "local bad = typeGuard({ [KEYS[1]] = 'hash', [KEYS[2]] = 'zset' })\n"
                             "if bad then return bad end\nreturn { 0 }\n";
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("typeguard");
  seed(c.get(), q);
  const std::string prefix = "emq:{" + q + "}:";
  const auto run = [&] {
    return raw.must({"EVAL", script, "2", prefix + "gactive", prefix + "g:a:pending"});
  };
  ReplyPtr ok = run();
  REQUIRE(ok->type == REDIS_REPLY_ARRAY);
  CHECK(ok->element[0]->integer == 0);
  for (const std::string &suffix : {std::string("gactive"), std::string("g:a:pending")}) {
    const Keyspace saved = raw.queue_snapshot(q);
    raw.must({"RENAME", prefix + suffix, prefix + "saved"});
    raw.must({"SET", prefix + suffix, "clobbered"});
    ReplyPtr bad = run();
    REQUIRE(bad->type == REDIS_REPLY_ARRAY);
    CHECK(bad->element[0]->integer == ECHOMQ_ESERVER);
    const std::string msg(bad->element[1]->str, bad->element[1]->len);
    INFO(msg);
    CHECK(msg.find(prefix + suffix) != std::string::npos);
    raw.must({"DEL", prefix + suffix});
    raw.must({"RENAME", prefix + "saved", prefix + suffix});
    CHECK(keyspace_diff(saved, raw.queue_snapshot(q)) == "");
  }
}

TEST_CASE("a claim passes over a lane whose pending set holds the wrong type, and serves the others",
          "[half_write]") {
  RawValkey raw;
  auto c = connect_client();
  const std::string q = fresh_queue("badlane");
  seed(c.get(), q);  // lanes a and b pending, in the ring
  const std::string pre = "emq:{" + q + "}:";
  raw.must({"DEL", pre + "g:a:pending"});
  raw.must({"SET", pre + "g:a:pending", "clobbered"});
  echomq_job_list *raw_list = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), q.c_str(), kLease, 10, 0, &raw_list));
  JobListPtr got(raw_list);
  // Lane b's two jobs, in one call; lane a was passed over, not half served.
  REQUIRE(echomq_job_list_count(got.get()) == 2);
  for (size_t i = 0; i < 2; ++i) CHECK(std::string(echomq_job_group(echomq_job_list_at(got.get(), i))) == "b");
  ReplyPtr v = raw.must({"GET", pre + "g:a:pending"});
  CHECK(std::string(v->str, v->len) == "clobbered");  // left for verify and an operator
  ReplyPtr ring = raw.must({"LRANGE", pre + "ring", "0", "-1"});
  CHECK(ring->elements == 0);  // a left the ring as an empty lane would; b is drained
  CHECK(stats(c.get(), q).leased == 3);  // the seed's held job and b's two
  // verify names the key (and only that: the other checks need sound keys).
  const std::vector<std::string> v2 = violations(c.get(), q);
  REQUIRE(v2.size() == 1);
  CHECK(v2[0] == "type: " + pre + "g:a:pending holds a string, not a zset");
}
