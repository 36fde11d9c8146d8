// echomq_repair: each corruption echomq_verify knows is planted through a raw
// connection into a queue with work in every state; verify must report it, a
// dry run must report changes and write nothing, the applied repair must
// report the same changes, verify must then be clean, and a second repair
// must find nothing to do. The queue must still drain completely afterwards.
#include "test_env.hpp"

#include "raw_valkey.hpp"

#include <functional>
#include <set>

using namespace emqtest;

namespace {

constexpr int64_t kLongLease = 60000;

/// Lanes a and b pending, a job of a leased, one of b delayed, one dead, and
/// lane c at its ceiling (limit 1: one leased, one pending, out of the ring).
struct Queue {
  ClientPtr c;
  std::string q = fresh_queue("repair");
  JobPtr leased_a, leased_c;
  uint64_t pending_a = 0;

  explicit Queue(ClientPtr client = connect_client()) : c(std::move(client)) {
    echomq_enqueue_options once = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    once.max_attempts = 1;
    const uint64_t dies = enqueue(c.get(), q, "dying", "d", &once);
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), dies, echomq_job_token(job.get()), "x", 0, nullptr));
    EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "c", 1));
    enqueue(c.get(), q, "a", "a1");
    pending_a = enqueue(c.get(), q, "a", "a2");
    enqueue(c.get(), q, "c", "c1");
    enqueue(c.get(), q, "c", "c2");
    leased_a = claim(c.get(), q, kLongLease);
    leased_c = claim(c.get(), q, kLongLease);
    REQUIRE(leased_a);
    REQUIRE(leased_c);
    REQUIRE(payload_of(leased_a.get()) == "a1");
    REQUIRE(payload_of(leased_c.get()) == "c1");
    enqueue(c.get(), q, "b", "b1");
    echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    later.delay_ms = 3600000;
    enqueue(c.get(), q, "b", "later", &later);
    require_verified(c.get(), q);
  }
  std::string key(const std::string &suffix) const { return "emq:{" + q + "}:" + suffix; }
};

/// Runs a whole repair in steps of `count`, returning every change line.
std::vector<std::string> repair(echomq_client *c, const std::string &q, bool apply,
                                size_t count = 1000) {
  std::vector<std::string> lines;
  std::string cursor;
  // The walk's SCAN phases visit the whole keyspace (one hash table bucket
  // a step at count 1), which every test on this server shares: the bound
  // on steps grows with it, so only a walk that never ends fails here.
  RawValkey raw;
  const long long bound = 10000 + 16 * raw.integer({"DBSIZE"});
  for (long long steps = 0;; ++steps) {
    REQUIRE(steps < bound);
    echomq_report *raw = nullptr;
    EMQ_REQUIRE_OK(c, echomq_repair(c, q.c_str(), apply ? 1 : 0, cursor.c_str(), count, &raw));
    ReportPtr r(raw);
    for (size_t i = 0; i < echomq_report_count(r.get()); ++i)
      lines.push_back(echomq_report_at(r.get(), i));
    const char *next = echomq_report_cursor(r.get());
    if (!next) return lines;
    cursor = next;
  }
}

std::string joined(const std::vector<std::string> &lines) {
  std::string s;
  for (const auto &l : lines) s += "\n  " + l;
  return s;
}

bool mentions(const std::vector<std::string> &lines, const std::string &what) {
  for (const auto &l : lines)
    if (l.find(what) != std::string::npos) return true;
  return false;
}

/// The cycle every corruption goes through. `expect` is a piece of a line
/// the repair must report. `exact`: the dry run reports exactly the changes
/// the repair makes (not so when a job is moved: a dry run counts the lanes
/// as they stand, without the move).
void plant_and_repair(Queue &h, RawValkey &raw, const std::function<void()> &plant,
                      const std::string &expect, size_t count = 1000, bool exact = true) {
  plant();
  const auto found = violations(h.c.get(), h.q);
  INFO("verify after planting:" << joined(found));
  REQUIRE_FALSE(found.empty());

  const Keyspace before = raw.queue_snapshot(h.q);
  const auto planned = repair(h.c.get(), h.q, false, count);
  INFO("dry run:" << joined(planned));
  CHECK(keyspace_diff(before, raw.queue_snapshot(h.q)) == "");
  CHECK(mentions(planned, expect));

  const auto made = repair(h.c.get(), h.q, true, count);
  INFO("applied:" << joined(made));
  CHECK(mentions(made, expect));
  if (exact) CHECK(made == planned);
  require_verified(h.c.get(), h.q);
  CHECK(repair(h.c.get(), h.q, true, count).empty());
  CHECK(repair(h.c.get(), h.q, false, count).empty());
}

/// Claims and acks everything left (leases run long: the held jobs are
/// acked by their holders), then checks nothing is left pending.
void drain(Queue &h) {
  ack(h.c.get(), h.q, h.leased_a.get());
  ack(h.c.get(), h.q, h.leased_c.get());
  for (int i = 0; i < 100; ++i) {
    JobPtr j = claim(h.c.get(), h.q, kLongLease);
    if (!j) break;
    ack(h.c.get(), h.q, j.get());
  }
  const echomq_queue_stats s = stats(h.c.get(), h.q);
  CHECK(s.pending == 0);
  CHECK(s.ring == 0);
  require_verified(h.c.get(), h.q);
}

}  // namespace

TEST_CASE("a healthy queue needs no repair", "[repair]") {
  // A server of its own: a repair one key a step walks the whole keyspace.
  PrivateServer server(free_port());
  server.start();
  Queue h(connect_client(nullptr, server.url()));
  CHECK(repair(h.c.get(), h.q, false).empty());
  CHECK(repair(h.c.get(), h.q, true).empty());
  CHECK(repair(h.c.get(), h.q, true, 1).empty());
  require_verified(h.c.get(), h.q);
}

TEST_CASE("repair fixes each corruption verify reports", "[repair]") {
  struct Case {
    const char *name;
    std::function<void(Queue &, RawValkey &)> plant;
    const char *expect;
    bool exact = true;
  };
  const std::vector<Case> cases = {
      {"a duplicate ring entry", [](Queue &h, RawValkey &r) { r.must({"RPUSH", h.key("ring"), "a"}); },
       "ring: lane a was in the ring 2 times, now once"},
      {"a lane with pending jobs missing from the ring",
       [](Queue &h, RawValkey &r) { r.must({"LREM", h.key("ring"), "0", "b"}); },
       "ring: lane b added (1 pending, not in the ring)"},
      {"a bogus lane in the ring",
       [](Queue &h, RawValkey &r) { r.must({"LPUSH", h.key("ring"), "nobody"}); },
       "ring: lane nobody removed"},
      {"a lane at its ceiling in the ring",
       [](Queue &h, RawValkey &r) { r.must({"RPUSH", h.key("ring"), "c"}); },
       "ring: lane c removed (1 pending, not serviceable)"},
      {"gactive one too high", [](Queue &h, RawValkey &r) { r.must({"HINCRBY", h.key("gactive"), "a", "1"}); },
       "gactive: lane a 2 -> 1"},
      {"gactive one too low (the lane at its ceiling looks free)",
       [](Queue &h, RawValkey &r) { r.must({"HDEL", h.key("gactive"), "c"}); },
       "gactive: lane c 0 -> 1"},
      {"a hidden underflow: gactive negative",
       [](Queue &h, RawValkey &r) { r.must({"HSET", h.key("gactive"), "b", "-1"}); },
       "gactive: lane b -1 (a hidden underflow) -> 0"},
      {"an underflow that hid a lane with work from the ring",
       [](Queue &h, RawValkey &r) {
         r.must({"HSET", h.key("gactive"), "a", "-1"});
         r.must({"LREM", h.key("ring"), "0", "a"});
       },
       "ring: lane a added (1 pending, not in the ring)"},
      {"glive drift", [](Queue &h, RawValkey &r) { r.must({"HINCRBY", h.key("glive"), "b", "2"}); },
       "glive: lane b 4 -> 2 (1 pending, 0 leased, 1 delayed)"},
      {"glive of a lane with no job",
       [](Queue &h, RawValkey &r) { r.must({"HSET", h.key("glive"), "ghost", "3"}); },
       "glive: lane ghost 3 -> 0"},
      {"the directory missing a lane",
       [](Queue &h, RawValkey &r) { r.must({"ZREM", h.key("lanes"), "b"}); },
       "lanes: lane b listed (2 live jobs, not in the directory)"},
      {"counter drift up", [](Queue &h, RawValkey &r) { r.must({"HINCRBY", h.key("stats"), "enqueued", "3"}); },
       "stats: acked +3"},
      {"counter drift down", [](Queue &h, RawValkey &r) { r.must({"HINCRBY", h.key("stats"), "acked", "2"}); },
       "stats: enqueued +2"},
      {"a pending job also delayed",
       [](Queue &h, RawValkey &r) {
         r.must({"ZADD", h.key("delayed"), "99999999999999", std::to_string(h.pending_a)});
       },
       "is in lane a and in delayed: removed from delayed", false},
      {"a pending job also leased",
       [](Queue &h, RawValkey &r) {
         r.must({"ZADD", h.key("leases"), "99999999999999", std::to_string(h.pending_a)});
       },
       "is in leases and in lane a: removed from lane a", false},
      {"a place holding a job without a record",
       [](Queue &h, RawValkey &r) { r.must({"ZADD", h.key("dead"), "1", "987654"}); },
       "I3: dead holds job 987654 whose record is missing: removed"},
      {"a job that vanished from its lane",
       [](Queue &h, RawValkey &r) { r.must({"ZREM", h.key("g:a:pending"), std::to_string(h.pending_a)}); },
       "is in no place: back in lane a", false},
      {"an attempt count of no job",
       [](Queue &h, RawValkey &r) { r.must({"HSET", h.key("att"), "424242", "2"}); },
       "I3: att holds job 424242 that does not exist: removed"},
      // An ack counts its job off the lane its delivery state names: the
      // drain below acks this job, and verify then checks lanes a and b.
      {"a delivery state naming another lane",
       [](Queue &h, RawValkey &r) {
         const JobPtr &j = h.leased_a;
         r.must({"HSET", h.key("att"), std::to_string(echomq_job_id(j.get())),
                 std::to_string(echomq_job_token(j.get())) + " 1 b"});
       },
       "names lane b, its record a: set to a"},
  };
  for (const Case &k : cases) {
    SECTION(k.name) {
      Queue h;
      RawValkey raw;
      plant_and_repair(h, raw, [&] { k.plant(h, raw); }, k.expect, 1000, k.exact);
      drain(h);
    }
  }
}

TEST_CASE("a job in the wrong lane goes back to its own", "[repair]") {
  Queue h;
  RawValkey raw;
  const std::string id = std::to_string(h.pending_a);
  raw.must({"ZREM", h.key("g:a:pending"), id});
  raw.must({"ZADD", h.key("g:b:pending"), id, id});
  REQUIRE_FALSE(violations(h.c.get(), h.q).empty());
  const auto made = repair(h.c.get(), h.q, true);
  INFO("applied:" << joined(made));
  CHECK(mentions(made, "is in no place: back in lane a"));
  CHECK(mentions(made, "of lane a sits in lane b: removed"));
  require_verified(h.c.get(), h.q);
  CHECK(repair(h.c.get(), h.q, true).empty());
  drain(h);
}

TEST_CASE("repair walks a queue in small steps with every corruption at once", "[repair]") {
  // A server of its own: one key per step walks the whole keyspace, which on
  // the shared server holds every other test's keys too.
  PrivateServer server(free_port());
  server.start();
  Queue h(connect_client(nullptr, server.url()));
  RawValkey raw("127.0.0.1", server.port());
  for (int i = 0; i < 30; ++i) enqueue(h.c.get(), h.q, "lane" + std::to_string(i % 7), "x");
  plant_and_repair(
      h, raw,
      [&] {
        raw.must({"RPUSH", h.key("ring"), "a"});
        raw.must({"LREM", h.key("ring"), "0", "lane3"});
        raw.must({"HSET", h.key("gactive"), "b", "-1"});
        raw.must({"HINCRBY", h.key("gactive"), "a", "1"});
        raw.must({"HINCRBY", h.key("glive"), "lane5", "-1"});
        raw.must({"ZREM", h.key("lanes"), "lane6"});
        raw.must({"HINCRBY", h.key("stats"), "enqueued", "4"});
        raw.must({"HSET", h.key("att"), "424242", "2"});
      },
      "gactive: lane b -1 (a hidden underflow) -> 0", 1);
  drain(h);
}

TEST_CASE("repair refuses bad input without a round trip", "[repair]") {
  auto c = connect_client();
  echomq_report *r = nullptr;
  CHECK(echomq_repair(c.get(), "q", 0, nullptr, 0, &r) == ECHOMQ_EINVAL);
  CHECK(r == nullptr);
  CHECK(echomq_repair(c.get(), "q", 0, nullptr, ECHOMQ_BATCH_MAX + 1, &r) == ECHOMQ_EINVAL);
  CHECK(echomq_repair(c.get(), "q", 0, "L 0 0 zz:1:0\n", 10, &r) == ECHOMQ_EINVAL);
  CHECK(echomq_repair(c.get(), "bad name", 0, nullptr, 10, &r) == ECHOMQ_EINVAL);
  CHECK(echomq_repair(c.get(), "q", 0, nullptr, 10, nullptr) == ECHOMQ_EINVAL);
  // A cursor of the right alphabet but no repair's: refused by the script.
  CHECK(echomq_repair(c.get(), fresh_queue("repair").c_str(), 1, "Z 0 0", 10, &r) == ECHOMQ_EINVAL);
  CHECK(echomq_report_cursor(nullptr) == nullptr);
}

namespace {
std::string encoding(RawValkey &raw, const std::string &key) {
  ReplyPtr enc = raw.must({"OBJECT", "ENCODING", key});
  REQUIRE(enc->type == REDIS_REPLY_STRING);
  return std::string(enc->str, enc->len);
}
}  // namespace

TEST_CASE("the per-lane counters and att are hash tables, leases and delayed skiplists, from the first "
          "enqueue, readers pass over their marks",
          "[repair]") {
  // A claim reads and writes these hashes once per lane, and att and leases
  // once per job; as listpacks every lookup or insert would scan the whole
  // key (docs/keys.md). A server of its own: the repair one key a step
  // below walks the whole keyspace.
  PrivateServer server(free_port());
  server.start();
  Queue h(connect_client(nullptr, server.url()));
  RawValkey raw("127.0.0.1", server.port());
  for (const char *name : {"gactive", "glive", "gserved", "att"}) {
    INFO(name);
    CHECK(encoding(raw, h.key(name)) == "hashtable");
  }
  for (const char *name : {"leases", "delayed"}) {
    INFO(name);
    CHECK(encoding(raw, h.key(name)) == "skiplist");
    // The mark is last (+inf: no due-time query reaches it) and no job id.
    ReplyPtr last = raw.must({"ZRANGE", h.key(name), "-1", "-1", "WITHSCORES"});
    REQUIRE(last->elements == 2);
    const std::string mark(last->element[0]->str, last->element[0]->len);
    CHECK(mark.size() > 64);
    CHECK(mark.find_first_not_of("0123456789") != std::string::npos);
    CHECK(std::string(last->element[1]->str, last->element[1]->len) == "inf");
  }
  // Counts pass over the marks: a2, c2 and b1 wait, a1 and c1 are leased,
  // one job is delayed and one dead.
  echomq_queue_stats st = stats(h.c.get(), h.q);
  CHECK(st.pending == 3);
  CHECK(st.leased == 2);
  CHECK(st.delayed == 1);
  CHECK(st.dead == 1);
  // The mark is no lane: a default limit (which walks gactive), verify,
  // repair and the lane listing all pass over it.
  EMQ_REQUIRE_OK(h.c.get(), echomq_set_default_limit(h.c.get(), h.q.c_str(), 1));
  EMQ_REQUIRE_OK(h.c.get(), echomq_set_default_limit(h.c.get(), h.q.c_str(), 0));
  require_verified(h.c.get(), h.q);
  CHECK(repair(h.c.get(), h.q, false).empty());
  CHECK(repair(h.c.get(), h.q, false, 1).empty());
  echomq_lane_list *l = nullptr;
  EMQ_REQUIRE_OK(h.c.get(), echomq_lanes(h.c.get(), h.q.c_str(), nullptr, 100, &l));
  LaneListPtr lanes(l);
  for (size_t i = 0; i < echomq_lane_list_count(lanes.get()); ++i)
    CHECK(std::string(echomq_lane_list_at(lanes.get(), i)->group) != "");
  // Drained, the sets hold their marks alone: nothing is leased or due.
  EMQ_REQUIRE_OK(h.c.get(), echomq_ack(h.c.get(), h.q.c_str(), echomq_job_id(h.leased_a.get()),
                                       echomq_job_token(h.leased_a.get())));
  EMQ_REQUIRE_OK(h.c.get(), echomq_ack(h.c.get(), h.q.c_str(), echomq_job_id(h.leased_c.get()),
                                       echomq_job_token(h.leased_c.get())));
  while (JobPtr j = claim(h.c.get(), h.q, kLongLease))
    EMQ_REQUIRE_OK(h.c.get(), echomq_ack(h.c.get(), h.q.c_str(), echomq_job_id(j.get()), echomq_job_token(j.get())));
  st = stats(h.c.get(), h.q);
  CHECK(st.pending == 0);
  CHECK(st.leased == 0);
  CHECK(st.delayed == 1);
  CHECK(raw.integer({"ZCARD", h.key("leases")}) == 1);
  require_verified(h.c.get(), h.q);
  CHECK(repair(h.c.get(), h.q, false).empty());
}

TEST_CASE("a key that lost its mark gets it back at the next enqueue, and counts stay right", "[repair]") {
  Queue h;
  RawValkey raw;
  ReplyPtr last = raw.must({"ZRANGE", h.key("leases"), "-1", "-1"});
  REQUIRE(last->elements == 1);
  const std::string mark(last->element[0]->str, last->element[0]->len);
  for (const char *name : {"leases", "delayed"}) raw.must({"ZREM", h.key(name), mark});
  // (glive keeps its mark: the leases mark alone decides.)
  for (const char *name : {"gactive", "gserved", "att"}) raw.must({"HDEL", h.key(name), ""});
  // Without the marks nothing is miscounted, only slower.
  echomq_queue_stats st = stats(h.c.get(), h.q);
  CHECK(st.leased == 2);
  CHECK(st.delayed == 1);
  CHECK(st.pending == 3);
  require_verified(h.c.get(), h.q);
  enqueue(h.c.get(), h.q, "a", "a3");
  for (const char *name : {"leases", "delayed"}) {
    INFO(name);
    ReplyPtr score = raw.must({"ZSCORE", h.key(name), mark});
    REQUIRE(score->type == REDIS_REPLY_STRING);
    CHECK(std::string(score->str, score->len) == "inf");
  }
  for (const char *name : {"gactive", "glive", "gserved", "att"}) {
    INFO(name);
    CHECK(raw.integer({"HEXISTS", h.key(name), ""}) == 1);
  }
  st = stats(h.c.get(), h.q);
  CHECK(st.leased == 2);
  CHECK(st.pending == 4);
  require_verified(h.c.get(), h.q);
  CHECK(repair(h.c.get(), h.q, false).empty());
}
