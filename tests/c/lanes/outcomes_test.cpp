// Outcomes: retention of completed jobs with their results, waiting for a
// job, the event stream and progress (docs/operations.md "Outcomes").
#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

int lookup_status(echomq_client *c, const std::string &q, uint64_t id) {
  echomq_job *raw = nullptr;
  int rc = echomq_get_job(c, q.c_str(), id, &raw);
  echomq_job_free(raw);
  return rc;
}

std::string result_of(const echomq_job *j) {
  size_t n = 0;
  const char *p = echomq_job_result(j, &n);
  return std::string(p, n);
}

std::string progress_of(const echomq_job *j) {
  size_t n = 0;
  const char *p = echomq_job_progress(j, &n);
  return std::string(p, n);
}

// Enqueues, claims and acks one job with `result`; returns its id.
uint64_t run_one(echomq_client *c, const std::string &q, const std::string &result,
                 const echomq_enqueue_options *o = nullptr) {
  uint64_t id = enqueue(c, q, "g", "payload", o);
  JobPtr j = claim(c, q, kLease);
  REQUIRE(j);
  REQUIRE(echomq_job_id(j.get()) == id);
  EMQ_REQUIRE_OK(c, echomq_ack_result(c, q.c_str(), id, echomq_job_token(j.get()), result.data(), result.size()));
  return id;
}

std::string key(const std::string &q, const std::string &name) { return "emq:{" + q + "}:" + name; }

// A queue in cost mode (quantum 1000) that retains outcomes, jobs enqueued
// in lane g, an engine of one slot on it and the first job it handed out.
struct OneSlot {
  std::string q;
  uint64_t first = 0;
  WorkerPtr w;
  JobPtr job;
};

OneSlot one_slot_in_cost_mode(echomq_client *c, const std::string &tag, const std::vector<std::string> &payloads) {
  OneSlot e;
  e.q = fresh_queue(tag);
  EMQ_REQUIRE_OK(c, echomq_set_retention(c, e.q.c_str(), 60000, 0));
  EMQ_REQUIRE_OK(c, echomq_set_cost_mode(c, e.q.c_str(), 1000));
  for (const std::string &p : payloads) {
    const uint64_t id = enqueue(c, e.q, "g", p);
    if (e.first == 0) e.first = id;
  }
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 1;
  e.w = start_worker(e.q, o);
  echomq_job *j = nullptr;
  REQUIRE(echomq_worker_next(e.w.get(), 5000, &j) == ECHOMQ_OK);
  e.job.reset(j);
  REQUIRE(echomq_job_id(j) == e.first);
  return e;
}

// Stops e's engine (drain: its settlement goes out), checks that the first
// job completed with result `res`, and returns lane g's v in gvt ("" = none).
std::string settled_v(echomq_client *c, OneSlot &e, const std::string &res) {
  REQUIRE(echomq_worker_stop(e.w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  JobPtr done = get_job(c, e.q, e.first);
  CHECK(echomq_job_state_of(done.get()) == ECHOMQ_JOB_COMPLETED);
  CHECK(result_of(done.get()) == res);
  RawValkey raw;
  ReplyPtr v = raw.must({"HGET", key(e.q, "gvt"), "g"});
  return v->str ? std::string(v->str, v->len) : std::string();
}

}  // namespace

TEST_CASE("a completed job keeps its result for its time, then is gone", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("keep");
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 300, 0));
  const std::string result("ok\0binary", 9);
  uint64_t id = run_one(c.get(), q, result);
  JobPtr j = get_job(c.get(), q, id);
  CHECK(echomq_job_state_of(j.get()) == ECHOMQ_JOB_COMPLETED);
  CHECK(result_of(j.get()) == result);
  CHECK(std::string(echomq_job_group(j.get())) == "g");
  CHECK(echomq_job_attempt(j.get()) == 1);
  CHECK(echomq_job_started_at_ms(j.get()) > 0);
  CHECK(echomq_job_finished_at_ms(j.get()) >= echomq_job_started_at_ms(j.get()));
  CHECK(echomq_job_started_at_ms(j.get()) >= echomq_job_enqueued_at_ms(j.get()));
  require_verified(c.get(), q);
  sleep_ms(400);
  // Past its time a lookup never shows it, trimmed or not yet.
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, lookup_status(c.get(), q, id));
  // The next settling call trims it from the server.
  run_one(c.get(), q, "");
  RawValkey raw;
  CHECK(raw.integer({"HEXISTS", key(q, "fin"), std::to_string(id)}) == 0);
  CHECK(raw.integer({"ZCARD", key(q, "done")}) == 1);
  require_verified(c.get(), q);
}

TEST_CASE("a job that is not retained is not found once acked", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("nokeep");
  uint64_t id = run_one(c.get(), q, "dropped");
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, lookup_status(c.get(), q, id));
  // A plain queue writes no outcome state at all.
  RawValkey raw;
  for (const char *k : {"done", "fin", "started", "events", "waiters"})
    CHECK(raw.integer({"EXISTS", key(q, k)}) == 0);
  CHECK(raw.command({"HGET", key(q, "config"), "outcomes"})->type == REDIS_REPLY_NIL);
}

TEST_CASE("keep last N trims exactly, across single acks and batches", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("lastn");
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 0, 3));
  std::vector<uint64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(run_one(c.get(), q, "r" + std::to_string(i)));
  // Then 5 in one settlement list.
  for (int i = 0; i < 5; ++i) enqueue(c.get(), q, "g", "p");
  echomq_job_list *raw_list = nullptr;
  REQUIRE(echomq_claim_batch(c.get(), q.c_str(), kLease, 5, 0, &raw_list) == ECHOMQ_OK);
  JobListPtr list(raw_list);
  SettlePtr s(echomq_settle_create());
  for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i) {
    const echomq_job *j = echomq_job_list_at(list.get(), i);
    ids.push_back(echomq_job_id(j));
    std::string r = "b" + std::to_string(i);
    REQUIRE(echomq_settle_ack_result(s.get(), echomq_job_id(j), echomq_job_token(j), r.data(), r.size()) ==
            ECHOMQ_OK);
  }
  EMQ_REQUIRE_OK(c.get(), echomq_settle_claim(c.get(), q.c_str(), s.get(), kLease, 0, 0, nullptr));
  REQUIRE(ids.size() == 9);
  for (size_t i = 0; i < ids.size(); ++i) {
    INFO("job " << ids[i]);
    if (i < 6) {
      CHECK(lookup_status(c.get(), q, ids[i]) == ECHOMQ_ENOTFOUND);
    } else {
      JobPtr j = get_job(c.get(), q, ids[i]);
      CHECK(result_of(j.get()) == "b" + std::to_string(i - 4));
    }
  }
  RawValkey raw;
  CHECK(raw.integer({"ZCARD", key(q, "done")}) == 3);
  CHECK(raw.integer({"HLEN", key(q, "fin")}) == 3);
  require_verified(c.get(), q);
  // Cleared: jobs that complete from now on are not kept.
  EMQ_REQUIRE_OK(c.get(), echomq_clear_retention(c.get(), q.c_str()));
  uint64_t after = run_one(c.get(), q, "x");
  CHECK(lookup_status(c.get(), q, after) == ECHOMQ_ENOTFOUND);
}

TEST_CASE("a job's own retention at enqueue, and older option versions keep working", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("perjob");
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.keep_ms = 60000;
  uint64_t kept = run_one(c.get(), q, "mine", &o);
  echomq_enqueue_options v2{};
  REQUIRE(echomq_enqueue_options_init(&v2, ECHOMQ_ENQUEUE_OPTIONS_VERSION_2) == ECHOMQ_OK);
  CHECK(v2.version == 2u);
  uint64_t plain = run_one(c.get(), q, "other", &v2);
  CHECK(result_of(get_job(c.get(), q, kept).get()) == "mine");
  CHECK(lookup_status(c.get(), q, plain) == ECHOMQ_ENOTFOUND);
  // Deleting a completed job removes it.
  EMQ_REQUIRE_OK(c.get(), echomq_delete_job(c.get(), q.c_str(), kept));
  CHECK(lookup_status(c.get(), q, kept) == ECHOMQ_ENOTFOUND);
  require_verified(c.get(), q);
}

TEST_CASE("purge forgets the lane's retained outcomes, and only that lane's", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("purgefin");
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 0, 100));
  std::vector<uint64_t> a, b;
  for (int i = 0; i < 5; ++i) {
    for (const char *g : {"a", "b"}) {
      uint64_t id = enqueue(c.get(), q, g, "p");
      JobPtr j = claim(c.get(), q, kLease);
      REQUIRE(j);
      EMQ_REQUIRE_OK(c.get(), echomq_ack_result(c.get(), q.c_str(), echomq_job_id(j.get()),
                                                echomq_job_token(j.get()), "r", 1));
      (std::string(echomq_job_group(j.get())) == "a" ? a : b).push_back(echomq_job_id(j.get()));
      (void)id;
    }
  }
  enqueue(c.get(), q, "a", "waiting");
  uint64_t removed = 0, cursor = 0, total = 0;
  int more = 1;
  while (more) {  // steps of 2: the finished place is walked in bounded steps too
    EMQ_REQUIRE_OK(c.get(), echomq_purge_lane(c.get(), q.c_str(), "a", 2, 0, &cursor, &removed, &more));
    total += removed;
  }
  CHECK(total == 6);
  for (uint64_t id : a) CHECK(lookup_status(c.get(), q, id) == ECHOMQ_ENOTFOUND);
  for (uint64_t id : b) CHECK(lookup_status(c.get(), q, id) == ECHOMQ_OK);
  require_verified(c.get(), q);
}

TEST_CASE("a dead job shows its times and last progress", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("deadtimes");
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 60000, 0));
  uint64_t id = enqueue(c.get(), q, "g", "p");
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  EMQ_REQUIRE_OK(c.get(), echomq_progress(c.get(), q.c_str(), id, echomq_job_token(j.get()), "40%", 3));
  CHECK(progress_of(get_job(c.get(), q, id).get()) == "40%");
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "boom",
                                      ECHOMQ_RETRY_DEAD, nullptr));
  JobPtr d = get_job(c.get(), q, id);
  CHECK(echomq_job_state_of(d.get()) == ECHOMQ_JOB_DEAD);
  CHECK(progress_of(d.get()) == "40%");
  CHECK(echomq_job_started_at_ms(d.get()) > 0);
  CHECK(echomq_job_finished_at_ms(d.get()) == echomq_job_dead_at_ms(d.get()));
  require_verified(c.get(), q);
}

TEST_CASE("bad outcome input gets a clear error and writes nothing", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("outbad");
  uint64_t id = enqueue(c.get(), q, "g", "p");
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  const uint64_t tok = echomq_job_token(j.get());
  RawValkey raw;
  Keyspace before = raw.queue_snapshot(q);
  std::string big(ECHOMQ_RESULT_MAX + 1, 'r');
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ETOOLARGE, echomq_ack_result(c.get(), q.c_str(), id, tok, big.data(), big.size()));
  std::string bigp(ECHOMQ_PROGRESS_MAX + 1, 'p');
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ETOOLARGE, echomq_progress(c.get(), q.c_str(), id, tok, bigp.data(), bigp.size()));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_ack_result(c.get(), q.c_str(), id, tok, nullptr, 3));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_retention(c.get(), q.c_str(), 0, 0));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_retention(c.get(), q.c_str(), -5, 0));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_retention(c.get(), q.c_str(), ECHOMQ_KEEP_MAX_MS + 1, 0));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_retention(c.get(), q.c_str(), 0, ECHOMQ_KEEP_LAST_MAX + 1));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_events(c.get(), q.c_str(), 0, 0));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_events(c.get(), q.c_str(), ECHOMQ_EVENTS_MAXLEN_MAX + 1, 0));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_set_events(c.get(), q.c_str(), 10, 8));
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.keep_ms = -1;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue(c.get(), q.c_str(), "g", "p", 1, &o, nullptr));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_wait_job(c.get(), q.c_str(), 0, 10, nullptr));
  echomq_event_list *ev = nullptr;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_events_read(c.get(), q.c_str(), "x y", 10, 0, &ev));
  CHECK(raw.queue_snapshot(q) == before);
  CHECK(echomq_job_state_of(get_job(c.get(), q, id).get()) == ECHOMQ_JOB_LEASED);
}

namespace {

struct Waiter {
  std::atomic<int> rc{-999};
  std::atomic<int64_t> done_at{0};
  JobPtr job;
  std::thread t;
  ClientPtr c;
  Waiter(const std::string &q, uint64_t id, int64_t timeout_ms) : c(connect_client()) {
    echomq_client *cp = c.get();
    t = std::thread([this, cp, q, id, timeout_ms] {
      echomq_job *raw = nullptr;
      int st = echomq_wait_job(cp, q.c_str(), id, timeout_ms, &raw);
      done_at = mono_ms();
      job.reset(raw);
      rc = st;
    });
  }
  ~Waiter() {
    if (t.joinable()) t.join();
  }
  void join() { t.join(); }
};

}  // namespace

TEST_CASE("a waiter blocked before the ack wakes within 100 ms of it, with the result", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("wait");
  uint64_t id = enqueue(c.get(), q, "g", "p");
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  Waiter w(q, id, 10000);
  sleep_ms(300);  // the waiter is blocked on the server by now
  CHECK(w.rc.load() == -999);
  EMQ_REQUIRE_OK(c.get(), echomq_ack_result(c.get(), q.c_str(), id, echomq_job_token(j.get()), "42", 2));
  const int64_t acked = mono_ms();
  w.join();
  REQUIRE(w.rc.load() == ECHOMQ_OK);
  CHECK(w.done_at.load() - acked <= 100);
  REQUIRE(w.job);
  CHECK(echomq_job_state_of(w.job.get()) == ECHOMQ_JOB_COMPLETED);
  CHECK(result_of(w.job.get()) == "42");
  // Not retained, but a job someone waited for is kept for the waiters'
  // grace (ECHOMQ_WAIT_GRACE_MS): a wait now returns at once.
  echomq_job *again = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_wait_job(c.get(), q.c_str(), id, 0, &again));
  echomq_job_free(again);
  require_verified(c.get(), q);
}

TEST_CASE("a waiter on a job that dies gets the dead state", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("waitdead");
  uint64_t id = enqueue(c.get(), q, "g", "p");
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  Waiter w(q, id, 10000);
  sleep_ms(200);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "no", ECHOMQ_RETRY_DEAD,
                                      nullptr));
  w.join();
  REQUIRE(w.rc.load() == ECHOMQ_OK);
  REQUIRE(w.job);
  CHECK(echomq_job_state_of(w.job.get()) == ECHOMQ_JOB_DEAD);
  CHECK(std::string(echomq_job_last_error(w.job.get())) == "no");
}

TEST_CASE("cancel interrupts a wait, a timeout is PENDING, no such job is ENOTFOUND", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("waitcancel");
  uint64_t id = enqueue(c.get(), q, "g", "p");
  {
    Waiter w(q, id, 20000);
    sleep_ms(200);
    const int64_t t0 = mono_ms();
    echomq_client_cancel(w.c.get());
    w.join();
    CHECK(w.rc.load() == ECHOMQ_ECANCELED);
    CHECK(mono_ms() - t0 < 5000);
  }
  // A canceled waiter stays counted until the job finishes (its wake-up
  // element then expires unread); one that timed out is uncounted.
  const uint64_t id2 = enqueue(c.get(), q, "g", "p2");
  echomq_job *raw = nullptr;
  const int64_t t0 = mono_ms();
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_PENDING, echomq_wait_job(c.get(), q.c_str(), id2, 150, &raw));
  CHECK(raw == nullptr);
  CHECK(mono_ms() - t0 >= 140);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_wait_job(c.get(), q.c_str(), id + 1000, 100, &raw));
  // A waiter that gave up leaves no count behind.
  RawValkey raw_v;
  CHECK(raw_v.integer({"HEXISTS", key(q, "waiters"), std::to_string(id2)}) == 0);
}

TEST_CASE("the event stream is bounded, in order, and a group sees every completion once", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("events");
  RawValkey raw;
  const std::string stream = key(q, "events");
  EMQ_REQUIRE_OK(c.get(), echomq_set_events(c.get(), q.c_str(), 100000, 0));
  raw.must({"XGROUP", "CREATE", stream, "audit", "$", "MKSTREAM"});
  const int n = 300;
  std::set<std::string> ids;
  for (int i = 0; i < n; ++i) ids.insert(std::to_string(enqueue(c.get(), q, "g" + std::to_string(i % 7), "p")));
  // Drain in batches, settling each with the next claim.
  SettlePtr s(echomq_settle_create());
  for (;;) {
    echomq_job_list *raw_list = nullptr;
    int rc = echomq_settle_claim(c.get(), q.c_str(), echomq_settle_count(s.get()) ? s.get() : nullptr, kLease, 64,
                                 0, &raw_list);
    echomq_settle_clear(s.get());
    if (rc == ECHOMQ_EMPTY) break;
    REQUIRE(rc == ECHOMQ_OK);
    JobListPtr list(raw_list);
    for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i) {
      const echomq_job *j = echomq_job_list_at(list.get(), i);
      REQUIRE(echomq_settle_ack(s.get(), echomq_job_id(j), echomq_job_token(j)) == ECHOMQ_OK);
    }
  }
  std::multiset<std::string> completed;
  for (;;) {
    ReplyPtr r = raw.must({"XREADGROUP", "GROUP", "audit", "c1", "COUNT", "500", "STREAMS", stream, ">"});
    if (r->type == REDIS_REPLY_NIL) break;
    const redisReply *entries = r->element[0]->element[1];
    if (entries->elements == 0) break;
    for (size_t i = 0; i < entries->elements; ++i) {
      const redisReply *f = entries->element[i]->element[1];
      std::string type, id;
      for (size_t k = 0; k + 1 < f->elements; k += 2) {
        std::string name(f->element[k]->str, f->element[k]->len);
        if (name == "type") type.assign(f->element[k + 1]->str, f->element[k + 1]->len);
        if (name == "id") id.assign(f->element[k + 1]->str, f->element[k + 1]->len);
      }
      if (type == "completed") completed.insert(id);
    }
  }
  CHECK(completed.size() == static_cast<size_t>(n));
  CHECK(std::set<std::string>(completed.begin(), completed.end()) == ids);
  // Every job: claimed before completed, in stream order (the C API reader).
  std::map<std::string, int> order;
  std::string after = "0";
  int seen = 0;
  for (;;) {
    echomq_event_list *el = nullptr;
    EMQ_REQUIRE_OK(c.get(), echomq_events_read(c.get(), q.c_str(), after.c_str(), 1000, 0, &el));
    EventListPtr l(el);
    if (echomq_event_list_count(l.get()) == 0) break;
    for (size_t i = 0; i < echomq_event_list_count(l.get()); ++i) {
      std::string type, id;
      for (size_t k = 0; k < echomq_event_list_nfields(l.get(), i); ++k) {
        std::string name = echomq_event_list_name(l.get(), i, k);
        if (name == "type") type = echomq_event_list_value(l.get(), i, k, nullptr);
        if (name == "id") id = echomq_event_list_value(l.get(), i, k, nullptr);
      }
      if (type == "claimed" || type == "completed") ++seen;
      if (type == "claimed") { CHECK(order[id] == 0); order[id] = 1; }
      if (type == "completed") { CHECK(order[id] == 1); order[id] = 2; }
      after = echomq_event_list_id(l.get(), i);
    }
  }
  CHECK(seen == 2 * n);
  // Bounded: a short stream stays near its length (MAXLEN ~ trims whole
  // nodes of up to stream-node-max-entries = 100 entries).
  const std::string q2 = fresh_queue("evshort");
  EMQ_REQUIRE_OK(c.get(), echomq_set_events(c.get(), q2.c_str(), 10, ECHOMQ_EVENTS_ENQUEUED));
  for (int i = 0; i < 400; ++i) run_one(c.get(), q2, "");
  long long len = raw.integer({"XLEN", key(q2, "events")});
  CHECK(len >= 10);
  CHECK(len <= 10 + 100);
  require_verified(c.get(), q);
}

TEST_CASE("progress is fenced by the token and is an event", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("progress");
  EMQ_REQUIRE_OK(c.get(), echomq_set_events(c.get(), q.c_str(), 1000, 0));
  uint64_t id = enqueue(c.get(), q, "g", "p");
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(j);
  const uint64_t tok = echomq_job_token(j.get());
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ESTALE, echomq_progress(c.get(), q.c_str(), id, tok + 1, "1", 1));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_progress(c.get(), q.c_str(), id + 50, tok, "1", 1));
  EMQ_REQUIRE_OK(c.get(), echomq_progress(c.get(), q.c_str(), id, tok, "7/10", 4));
  CHECK(progress_of(get_job(c.get(), q, id).get()) == "7/10");
  RawValkey raw;
  ReplyPtr r = raw.must({"XREVRANGE", key(q, "events"), "+", "-", "COUNT", "1"});
  REQUIRE(r->elements == 1);
  const redisReply *f = r->element[0]->element[1];
  std::map<std::string, std::string> m;
  for (size_t k = 0; k + 1 < f->elements; k += 2)
    m[std::string(f->element[k]->str, f->element[k]->len)] = std::string(f->element[k + 1]->str, f->element[k + 1]->len);
  CHECK(m["type"] == "progress");
  CHECK(m["id"] == std::to_string(id));
  CHECK(m["progress"] == "7/10");
  CHECK(m["lane"] == "g");
  CHECK(m["attempt"] == "1");
  // A lane setting change is an event too.
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", 3));
  r = raw.must({"XREVRANGE", key(q, "events"), "+", "-", "COUNT", "1"});
  f = r->element[0]->element[1];
  m.clear();
  for (size_t k = 0; k + 1 < f->elements; k += 2)
    m[std::string(f->element[k]->str, f->element[k]->len)] = std::string(f->element[k + 1]->str, f->element[k + 1]->len);
  CHECK(m["type"] == "setting");
  CHECK(m["setting"] == "weight");
  CHECK(m["lane"] == "g");
  CHECK(m["value"] == "3");
  ack(c.get(), q, j.get());
  // Its ack cleared the progress; the flag goes off with nothing left on.
  EMQ_REQUIRE_OK(c.get(), echomq_clear_events(c.get(), q.c_str()));
  CHECK(raw.integer({"EXISTS", key(q, "progress")}) == 0);
  CHECK(raw.command({"HGET", key(q, "config"), "outcomes"})->type == REDIS_REPLY_NIL);
}

namespace {

// Runs a repair to its end; returns every line it reported.
std::vector<std::string> repair_all(echomq_client *c, const std::string &q, int apply) {
  std::vector<std::string> lines;
  std::string cursor;
  for (int step = 0; step < 1000; ++step) {
    echomq_report *raw = nullptr;
    EMQ_REQUIRE_OK(c, echomq_repair(c, q.c_str(), apply, cursor.c_str(), 100, &raw));
    ReportPtr r(raw);
    for (size_t i = 0; i < echomq_report_count(r.get()); ++i) lines.push_back(echomq_report_at(r.get(), i));
    const char *next = echomq_report_cursor(r.get());
    if (!next) return lines;
    cursor = next;
  }
  FAIL("repair did not finish");
  return lines;
}

}  // namespace

TEST_CASE("verify checks the finished place and repair mends it", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("finrepair");
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 600000, 100));
  uint64_t a = run_one(c.get(), q, "a");
  uint64_t b = run_one(c.get(), q, "b");
  uint64_t live = enqueue(c.get(), q, "g", "waiting");
  require_verified(c.get(), q);
  RawValkey raw;
  // Planted: a finished id without its outcome, an outcome of no job, a
  // live job also in the finished set, an expiry of a job not finished.
  raw.must({"HDEL", key(q, "fin"), std::to_string(a)});
  raw.must({"HSET", key(q, "fin"), "999999", "1 1 1 1 1 1 1 0 0 g"});
  raw.must({"ZADD", key(q, "done"), "1", std::to_string(live)});
  raw.must({"ZADD", key(q, "doneexp"), "1", "888888"});
  // (The live job in the finished set is two findings: two places, and a
  // finished id without an outcome.)
  std::vector<std::string> v = violations(c.get(), q);
  CHECK(v.size() == 5);
  std::vector<std::string> plan = repair_all(c.get(), q, 0);
  CHECK(plan.size() == 4);
  CHECK(violations(c.get(), q).size() == 5);  // a dry run writes nothing
  CHECK(repair_all(c.get(), q, 1) == plan);
  require_verified(c.get(), q);
  CHECK(repair_all(c.get(), q, 1).empty());
  CHECK(lookup_status(c.get(), q, a) == ECHOMQ_ENOTFOUND);
  CHECK(result_of(get_job(c.get(), q, b).get()) == "b");
  CHECK(echomq_job_state_of(get_job(c.get(), q, live).get()) == ECHOMQ_JOB_PENDING);
}

TEST_CASE("in cost mode a worker's result and its lane's charge go in one take call", "[outcomes][cost]") {
  // take's ARGV holds the charges, then the results, each led by its count
  // (lua/take.lua): a call with both must be parsed whole, the result kept
  // and the measured time charged.
  auto c = connect_client();
  OneSlot e = one_slot_in_cost_mode(c.get(), "keep-cost", {"payload"});
  REQUIRE(echomq_worker_done_result(e.w.get(), e.job.get(), "res", 3) == ECHOMQ_OK);
  const std::string v = settled_v(c.get(), e, "res");
  // The lane ran dry after its one job, so its v may be forgotten; the
  // floor's record shows a charge was counted either way.
  RawValkey raw;
  ReplyPtr floor = raw.must({"HGET", key(e.q, "gvt"), ""});
  INFO("gvt g: " << v);
  CHECK((!v.empty() || floor->str != nullptr));
  require_verified(c.get(), e.q);
}

TEST_CASE("a worker's result and its reported cost settle together: the lane is charged the cost", "[outcomes][cost]") {
  // One report carries both (echomq_job_report.result): the result is kept
  // and the lane charged the 7 units reported, not the handler's measured
  // time (20 ms and more, in µs).
  auto c = connect_client();
  // Two jobs behind the first keep the lane's v: the claim fused with the
  // settlement takes the second, and a claim that empties a lane forgets
  // its v.
  OneSlot e = one_slot_in_cost_mode(c.get(), "keep-reported", {"payload", "second", "third"});
  echomq_worker *w = e.w.get();
  echomq_job *j = e.job.get();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  echomq_job_report r = ECHOMQ_JOB_REPORT_INIT;
  r.cost = 7;
  // Refused reports settle nothing: the job is still held afterwards.
  r.result = nullptr;
  r.result_len = 3;
  CHECK(echomq_worker_done_with(w, j, &r) == ECHOMQ_EINVAL);
  r.result = "res";
  CHECK(echomq_worker_fail_with(w, j, "no", ECHOMQ_RETRY_DEFAULT, &r) == ECHOMQ_EINVAL);
  std::string big(ECHOMQ_RESULT_MAX + 1, 'x');
  r.result = big.data();
  r.result_len = big.size();
  CHECK(echomq_worker_done_with(w, j, &r) == ECHOMQ_ETOOLARGE);
  r.result = "res";
  r.result_len = 3;
  REQUIRE(echomq_worker_done_with(w, j, &r) == ECHOMQ_OK);
  CHECK(settled_v(c.get(), e, "res") == "7");
  require_verified(c.get(), e.q);
}

TEST_CASE("a version-1 job report still settles (cost only)", "[outcomes][cost]") {
  echomq_job_report r;
  std::memset(&r, 0xff, sizeof r);
  REQUIRE(echomq_job_report_init(&r, ECHOMQ_JOB_REPORT_VERSION_1) == ECHOMQ_OK);
  CHECK(r.version == ECHOMQ_JOB_REPORT_VERSION_1);
  CHECK(r.cost == 0);
  CHECK(r.result_len == SIZE_MAX);  // past version 1's end: left alone
  CHECK(echomq_job_report_init(&r, ECHOMQ_JOB_REPORT_VERSION + 1) == ECHOMQ_EINVAL);
  CHECK(echomq_job_report_init(nullptr, ECHOMQ_JOB_REPORT_VERSION) == ECHOMQ_EINVAL);
  auto c = connect_client();
  OneSlot e = one_slot_in_cost_mode(c.get(), "report-v1", {"one", "two", "three"});
  r.cost = 5;  // its result fields, past a version-1 struct, are not read
  REQUIRE(echomq_worker_done_with(e.w.get(), e.job.get(), &r) == ECHOMQ_OK);
  CHECK(settled_v(c.get(), e, "") == "5");
}

TEST_CASE("echomq_get_outcomes reads back the retention and event settings", "[outcomes]") {
  auto c = connect_client();
  const std::string q = fresh_queue("outcome-settings");
  echomq_outcome_settings o{};
  o.version = ECHOMQ_OUTCOME_SETTINGS_VERSION;
  EMQ_REQUIRE_OK(c.get(), echomq_get_outcomes(c.get(), q.c_str(), &o));
  CHECK(o.keep_ms == 0);
  CHECK(o.keep_last == 0);
  CHECK(o.events_max_len == 0);
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 60000, 50));
  EMQ_REQUIRE_OK(c.get(), echomq_set_events(c.get(), q.c_str(), 1000, ECHOMQ_EVENTS_ENQUEUED));
  EMQ_REQUIRE_OK(c.get(), echomq_get_outcomes(c.get(), q.c_str(), &o));
  CHECK(o.keep_ms == 60000);
  CHECK(o.keep_last == 50);
  CHECK(o.events_max_len == 1000);
  CHECK(o.events_flags == ECHOMQ_EVENTS_ENQUEUED);
  EMQ_REQUIRE_OK(c.get(), echomq_clear_events(c.get(), q.c_str()));
  EMQ_REQUIRE_OK(c.get(), echomq_get_outcomes(c.get(), q.c_str(), &o));
  CHECK(o.events_max_len == 0);
  CHECK(o.events_flags == 0);
  o.version = 99;
  CHECK(echomq_get_outcomes(c.get(), q.c_str(), &o) == ECHOMQ_EINVAL);
  CHECK(echomq_get_outcomes(c.get(), q.c_str(), nullptr) == ECHOMQ_EINVAL);
}
