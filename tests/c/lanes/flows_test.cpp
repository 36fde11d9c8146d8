// Flows: jobs that wait for other jobs of the same queue (echomq/flows.h,
// docs/operations.md "Flows"): a parent runs once, after its last child,
// with their outcomes; the policies on a child's death; bad input; delete;
// fairness of a fan-out; a sharded queue keeps a flow on one shard.
#include "flows_support.hpp"
#include "raw_valkey.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

void ack_with(echomq_client *c, const std::string &q, const echomq_job *j, const std::string &result) {
  EMQ_REQUIRE_OK(c, echomq_ack_result(c, q.c_str(), echomq_job_id(j), echomq_job_token(j), result.data(),
                                      result.size()));
}

// Fails job j for good (dead now) with `reason`.
void kill(echomq_client *c, const std::string &q, const echomq_job *j, const char *reason) {
  int outcome = 0;
  EMQ_REQUIRE_OK(c, echomq_fail(c, q.c_str(), echomq_job_id(j), echomq_job_token(j), reason, ECHOMQ_RETRY_DEAD,
                                &outcome));
  REQUIRE(outcome == ECHOMQ_FAIL_DEAD);
}

// A whole repair that writes, step by step.
void repair_all(echomq_client *c, const std::string &q) {
  std::string cursor;
  do {
    echomq_report *raw = nullptr;
    EMQ_REQUIRE_OK(c, echomq_repair(c, q.c_str(), 1, cursor.c_str(), 100, &raw));
    const char *next = echomq_report_cursor(raw);
    cursor = next ? next : "";
    echomq_report_free(raw);
  } while (!cursor.empty());
}

std::string lastError(echomq_client *c, const std::string &q, uint64_t id) {
  JobPtr j = get_job(c, q, id);
  return echomq_job_last_error(j.get());
}

}  // namespace

TEST_CASE("flows: a parent waits for its children, then runs once with their results", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  const std::string q = fresh_queue("flow-basic");
  std::vector<uint64_t> id = enqueue_flow(c, q, {{"report", "", ECHOMQ_FLOW_FAIL, "p", "R"},
                                                 {"a", "report", ECHOMQ_FLOW_FAIL, "x", "A"},
                                                 {"b", "report", ECHOMQ_FLOW_FAIL, "y", "B"}});
  REQUIRE(id[1] == id[0] + 1);
  REQUIRE(state_of(c, q, id[0]) == ECHOMQ_JOB_WAITING);
  REQUIRE(stats(c, q).pending == 2);  // the parent waits, it is not pending
  require_verified(c, q);
  JobPtr a = claim(c, q, kLease);
  JobPtr b = claim(c, q, kLease);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(std::set<uint64_t>{echomq_job_id(a.get()), echomq_job_id(b.get())} == std::set<uint64_t>{id[1], id[2]});
  REQUIRE_FALSE(claim(c, q, kLease));  // the parent is not claimable yet
  if (echomq_job_id(a.get()) != id[1]) std::swap(a, b);
  ack_with(c, q, a.get(), "ra");
  REQUIRE_FALSE(claim(c, q, kLease));
  {
    FlowInfoPtr fi = flow_info(c, q, id[0]);
    REQUIRE(echomq_flow_info_state(fi.get()) == ECHOMQ_JOB_WAITING);
    REQUIRE(echomq_flow_info_waiting(fi.get()) == 1);
    REQUIRE(echomq_flow_info_count(fi.get()) == 2);
    std::map<uint64_t, size_t> at;
    for (size_t i = 0; i < 2; ++i) at[echomq_flow_info_child(fi.get(), i)] = i;
    REQUIRE(echomq_flow_info_child_state(fi.get(), at[id[1]]) == ECHOMQ_JOB_COMPLETED);
    REQUIRE(child_result(fi.get(), at[id[1]]) == "ra");
    REQUIRE(echomq_flow_info_child_state(fi.get(), at[id[2]]) == ECHOMQ_JOB_LEASED);
    FlowInfoPtr child = flow_info(c, q, id[2]);
    REQUIRE(echomq_flow_info_parent(child.get()) == id[0]);
  }
  require_verified(c, q);
  ack_with(c, q, b.get(), "rb");
  JobPtr p = claim(c, q, kLease);
  REQUIRE(p);
  REQUIRE(echomq_job_id(p.get()) == id[0]);
  REQUIRE(echomq_job_attempt(p.get()) == 1);
  FlowInfoPtr fi = flow_info(c, q, id[0]);
  REQUIRE(echomq_flow_info_waiting(fi.get()) == 0);
  std::set<std::string> results;
  for (size_t i = 0; i < echomq_flow_info_count(fi.get()); ++i) results.insert(child_result(fi.get(), i));
  REQUIRE(results == std::set<std::string>{"ra", "rb"});
  ack(c, q, p.get());
  // The parent's settlement frees its children's outcomes.
  echomq_flow_info *raw = nullptr;
  REQUIRE(echomq_flow_info_get(c, q.c_str(), id[0], &raw) == ECHOMQ_ENOTFOUND);
  RawValkey r;
  REQUIRE(r.integer({"EXISTS", "emq:{" + q + "}:k:" + std::to_string(id[0])}) == 0);
  require_verified(c, q);
}

TEST_CASE("flows: a chain runs in order, each step after the one before", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  const std::string q = fresh_queue("flow-chain");
  // c waits for b, b for a: a then b then c.
  std::vector<uint64_t> id = enqueue_flow(c, q, {{"c", "", 0, "l", "C"}, {"b", "c", 0, "l", "B"}, {"a", "b", 0, "m", "A"}});
  std::string prev;
  for (const char *want : {"A", "B", "C"}) {
    JobPtr j = claim(c, q, kLease);
    REQUIRE(j);
    REQUIRE(payload_of(j.get()) == want);
    REQUIRE_FALSE(claim(c, q, kLease));
    FlowInfoPtr fi = flow_info(c, q, echomq_job_id(j.get()));
    if (!prev.empty()) {
      REQUIRE(echomq_flow_info_count(fi.get()) == 1);
      REQUIRE(child_result(fi.get(), 0) == prev);
    }
    prev = std::string("after ") + want;
    ack_with(c, q, j.get(), prev);
  }
  REQUIRE_FALSE(claim(c, q, kLease));
  REQUIRE(stats(c, q).pending == 0);
  require_verified(c, q);
}

TEST_CASE("flows: what a parent does when a child dies", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  for (int policy : {ECHOMQ_FLOW_FAIL, ECHOMQ_FLOW_IGNORE, ECHOMQ_FLOW_CONTINUE}) {
    DYNAMIC_SECTION("policy " << policy) {
      const std::string q = fresh_queue("flow-policy");
      std::vector<uint64_t> id =
          enqueue_flow(c, q, {{"p", "", 0, "p", "P"}, {"bad", "p", policy, "x", "X"}, {"good", "p", 0, "y", "Y"}});
      JobPtr x = claim(c, q, kLease);
      JobPtr y = claim(c, q, kLease);
      if (echomq_job_id(x.get()) != id[1]) std::swap(x, y);
      kill(c, q, x.get(), "boom");
      require_verified(c, q);
      if (policy == ECHOMQ_FLOW_FAIL) {
        REQUIRE(state_of(c, q, id[0]) == ECHOMQ_JOB_DEAD);
        REQUIRE(lastError(c, q, id[0]) == "child " + std::to_string(id[1]) + " failed: boom");
        ack(c, q, y.get());  // the other child still finishes; the parent stays dead
        REQUIRE_FALSE(claim(c, q, kLease));
        REQUIRE(state_of(c, q, id[0]) == ECHOMQ_JOB_DEAD);
      } else {
        REQUIRE(state_of(c, q, id[0]) == ECHOMQ_JOB_WAITING);
        ack_with(c, q, y.get(), "fine");
        JobPtr p = claim(c, q, kLease);
        REQUIRE(p);
        REQUIRE(echomq_job_id(p.get()) == id[0]);
        FlowInfoPtr fi = flow_info(c, q, id[0]);
        if (policy == ECHOMQ_FLOW_IGNORE) {
          REQUIRE(echomq_flow_info_count(fi.get()) == 1);
          REQUIRE(echomq_flow_info_child(fi.get(), 0) == id[2]);
        } else {
          REQUIRE(echomq_flow_info_count(fi.get()) == 2);
          for (size_t i = 0; i < 2; ++i) {
            if (echomq_flow_info_child(fi.get(), i) != id[1]) continue;
            REQUIRE(echomq_flow_info_child_state(fi.get(), i) == ECHOMQ_JOB_DEAD);
            REQUIRE(child_error(fi.get(), i) == "boom");
          }
        }
        ack(c, q, p.get());
      }
      require_verified(c, q);
    }
  }
}

TEST_CASE("flows: a death goes up the tree by each link's policy", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  const std::string q = fresh_queue("flow-up");
  // root <-(continue)- mid <-(fail)- leaf
  std::vector<uint64_t> id = enqueue_flow(
      c, q, {{"root", "", 0, "r", ""}, {"mid", "root", ECHOMQ_FLOW_CONTINUE, "m", ""}, {"leaf", "mid", 0, "l", ""}});
  JobPtr leaf = claim(c, q, kLease);
  kill(c, q, leaf.get(), "gone");
  REQUIRE(state_of(c, q, id[1]) == ECHOMQ_JOB_DEAD);
  JobPtr root = claim(c, q, kLease);
  REQUIRE(root);
  REQUIRE(echomq_job_id(root.get()) == id[0]);
  FlowInfoPtr fi = flow_info(c, q, id[0]);
  REQUIRE(echomq_flow_info_count(fi.get()) == 1);
  REQUIRE(echomq_flow_info_child_state(fi.get(), 0) == ECHOMQ_JOB_DEAD);
  REQUIRE(child_error(fi.get(), 0) == "child " + std::to_string(id[2]) + " failed: gone");
  ack(c, q, root.get());
  require_verified(c, q);
}

TEST_CASE("flows: bad input is refused before anything is written", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  const std::string q = fresh_queue("flow-bad");
  struct Case {
    const char *what;
    std::vector<FlowJobSpec> jobs;
    int status;
    const char *words;
  };
  std::vector<FlowJobSpec> big;
  for (int i = 0; i <= ECHOMQ_FLOW_MAX; ++i) big.push_back({"j" + std::to_string(i), i ? "j0" : "", 0, "g", ""});
  std::vector<Case> cases = {
      {"a cycle", {{"a", "c", 0, "g", ""}, {"b", "a", 0, "g", ""}, {"c", "b", 0, "g", ""}}, ECHOMQ_EINVAL, "cycle"},
      {"its own parent", {{"a", "a", 0, "g", ""}}, ECHOMQ_EINVAL, "cycle"},
      {"an unknown id", {{"a", "", 0, "g", ""}, {"b", "nope", 0, "g", ""}}, ECHOMQ_EINVAL, "not in the flow"},
      {"another queue", {{"a", "", 0, "g", ""}, {"b", "a", 0, "g", "", "other"}}, ECHOMQ_EINVAL, "one queue"},
      {"over the bound", big, ECHOMQ_ETOOLARGE, "bound"},
  };
  for (const Case &k : cases) {
    INFO(k.what);
    FlowPtr f(echomq_flow_create());
    int added = ECHOMQ_OK;
    for (const FlowJobSpec &j : k.jobs) {
      added = echomq_flow_add(f.get(), j.name.c_str(), j.parent.empty() ? nullptr : j.parent.c_str(), j.on_fail,
                              j.queue.empty() ? nullptr : j.queue.c_str(), j.group.c_str(), "", 0);
      if (added != ECHOMQ_OK) break;
    }
    int rc = added != ECHOMQ_OK ? added : echomq_enqueue_flow(c, q.c_str(), f.get(), 0);
    REQUIRE(rc == k.status);
    if (added == ECHOMQ_OK) REQUIRE(std::string(echomq_client_errmsg(c)).find(k.words) != std::string::npos);
  }
  FlowPtr f(echomq_flow_create());
  REQUIRE(echomq_flow_add(f.get(), "a", nullptr, 0, nullptr, "g", "", 0) == ECHOMQ_OK);
  REQUIRE(echomq_flow_add(f.get(), "a", nullptr, 0, nullptr, "g", "", 0) == ECHOMQ_EINVAL);  // a name twice
  REQUIRE(echomq_flow_add(f.get(), "b", nullptr, 7, nullptr, "g", "", 0) == ECHOMQ_EINVAL);  // a bad policy
  REQUIRE(echomq_flow_add(f.get(), "", nullptr, 0, nullptr, "g", "", 0) == ECHOMQ_EINVAL);
  FlowPtr empty(echomq_flow_create());
  REQUIRE(echomq_enqueue_flow(c, q.c_str(), empty.get(), 0) == ECHOMQ_EINVAL);
  RawValkey r;
  REQUIRE(r.queue_snapshot(q).empty());  // nothing written
}

TEST_CASE("flows: delete refuses a job of an unfinished flow, delete_flow removes it whole", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  const std::string q = fresh_queue("flow-delete");
  std::vector<uint64_t> id = enqueue_flow(
      c, q, {{"root", "", 0, "r", ""}, {"mid", "root", 0, "m", ""}, {"a", "mid", 0, "x", ""}, {"b", "mid", 0, "y", ""}});
  uint64_t plain = enqueue(c, q, "x", "plain");
  EMQ_REQUIRE_STATUS(c, ECHOMQ_EDEPENDS, echomq_delete_job(c, q.c_str(), id[2]));
  EMQ_REQUIRE_STATUS(c, ECHOMQ_EDEPENDS, echomq_delete_job(c, q.c_str(), id[0]));
  REQUIRE(std::string(echomq_client_errmsg(c)).find("flow") != std::string::npos);
  JobPtr a = claim(c, q, kLease);  // a is leased: the flow cannot go now
  REQUIRE(echomq_job_id(a.get()) == id[2]);
  uint64_t n = 0;
  EMQ_REQUIRE_STATUS(c, ECHOMQ_ELEASED, echomq_delete_flow(c, q.c_str(), id[3], &n));
  REQUIRE(state_of(c, q, id[3]) == ECHOMQ_JOB_PENDING);
  ack(c, q, a.get());
  EMQ_REQUIRE_OK(c, echomq_delete_flow(c, q.c_str(), id[3], &n));
  REQUIRE(n == 3);  // b, mid, root (a finished)
  for (uint64_t x : id) REQUIRE(state_of(c, q, x) == 0);
  REQUIRE(state_of(c, q, plain) == ECHOMQ_JOB_PENDING);
  require_verified(c, q);
  JobPtr j = claim(c, q, kLease);
  REQUIRE(echomq_job_id(j.get()) == plain);
}

TEST_CASE("flows: a fan-out of 1,000 children does not starve another lane", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  for (bool tenants : {false, true}) {
    DYNAMIC_SECTION("tenants " << tenants) {
      const std::string q = fresh_queue("flow-fanout");
      std::string big = tenants ? "A/fan" : "fan", small = tenants ? "B/jobs" : "small";
      std::vector<FlowJobSpec> jobs = {{"chord", "", 0, tenants ? "A/done" : "done", ""}};
      for (int i = 0; i < 999; ++i) jobs.push_back({"c" + std::to_string(i), "chord", 0, big, ""});
      enqueue_flow(c, q, jobs);
      for (int i = 0; i < 10; ++i) enqueue(c, q, small, "s");
      int served = 0;
      for (int i = 0; i < 20; ++i) {
        JobPtr j = claim(c, q, kLease);
        REQUIRE(j);
        if (std::string(echomq_job_group(j.get())) == small) ++served;
        ack(c, q, j.get());
      }
      REQUIRE(served == 10);  // one turn each: the ring alternates
      require_verified(c, q);
    }
  }
}

TEST_CASE("flows: a sharded queue keeps a flow on one shard", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  const std::string q = fresh_queue("flow-shards");
  EMQ_REQUIRE_OK(c, echomq_shards_create(c, q.c_str(), 4));
  std::vector<FlowJobSpec> jobs = {{"root", "", 0, "r", "root"}};
  for (int i = 0; i < 12; ++i) jobs.push_back({"c" + std::to_string(i), "root", 0, "lane" + std::to_string(i), "c"});
  std::vector<uint64_t> id = enqueue_flow(c, q, jobs);
  for (uint64_t x : id) REQUIRE(x % 4 == id[0] % 4);  // ids carry their shard
  FlowInfoPtr fi = flow_info(c, q, id[0]);
  REQUIRE(echomq_flow_info_count(fi.get()) == 12);
  REQUIRE(echomq_flow_info_state(fi.get()) == ECHOMQ_JOB_WAITING);
  std::vector<uint64_t> order;
  for (;;) {
    JobPtr j = claim(c, q, kLease);
    if (!j) break;
    order.push_back(echomq_job_id(j.get()));
    ack_with(c, q, j.get(), "r");
  }
  REQUIRE(order.size() == 13);
  REQUIRE(order.back() == id[0]);
  REQUIRE(violations(c, q).empty());
}

TEST_CASE("flows: repair sets a parent's count and lets a parent with no unfinished child go", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  const std::string q = fresh_queue("flow-repair");
  std::vector<uint64_t> id = enqueue_flow(c, q, {{"p", "", 0, "p", ""}, {"a", "p", 0, "x", ""}, {"b", "p", 0, "x", ""}});
  RawValkey r;
  const std::string deps = "emq:{" + q + "}:deps";
  r.must({"HSET", deps, std::to_string(id[0]), "5"});
  REQUIRE_FALSE(violations(c, q).empty());
  repair_all(c, q);
  require_verified(c, q);
  ReplyPtr left = r.must({"HGET", deps, std::to_string(id[0])});
  REQUIRE(std::string(left->str, left->len) == "2");
  // Both children lost (deleted by hand): the parent waits for nothing.
  r.must({"HDEL", "emq:{" + q + "}:jobs", std::to_string(id[1]), std::to_string(id[2])});
  r.must({"ZREM", "emq:{" + q + "}:g:x:pending", std::to_string(id[1]), std::to_string(id[2])});
  r.must({"HINCRBY", "emq:{" + q + "}:stats", "deleted", "2"});
  REQUIRE_FALSE(violations(c, q).empty());
  repair_all(c, q);
  require_verified(c, q);
  JobPtr p = claim(c, q, kLease);
  REQUIRE(p);
  REQUIRE(echomq_job_id(p.get()) == id[0]);
}

TEST_CASE("flows: events and retention alongside", "[flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  const std::string q = fresh_queue("flow-events");
  EMQ_REQUIRE_OK(c, echomq_set_events(c, q.c_str(), 1000, 0));
  EMQ_REQUIRE_OK(c, echomq_set_retention(c, q.c_str(), 60000, 0));
  std::vector<uint64_t> a = enqueue_flow(c, q, {{"p", "", 0, "p", ""}, {"c1", "p", ECHOMQ_FLOW_CONTINUE, "x", ""},
                                                {"c2", "p", 0, "y", ""}});
  std::vector<uint64_t> b = enqueue_flow(c, q, {{"p", "", 0, "p2", ""}, {"c", "p", ECHOMQ_FLOW_FAIL, "z", ""}});
  std::map<uint64_t, JobPtr> held;
  for (int i = 0; i < 3; ++i) {
    JobPtr j = claim(c, q, kLease);
    REQUIRE(j);
    held[echomq_job_id(j.get())] = std::move(j);
  }
  kill(c, q, held[a[1]].get(), "boom");  // continue: the parent still waits for c2
  kill(c, q, held[b[1]].get(), "bang");  // fail: its parent dies
  ack_with(c, q, held[a[2]].get(), "fine");
  JobPtr p = claim(c, q, kLease);  // the delayed-due-now parent comes back with a claim
  REQUIRE(p);
  REQUIRE(echomq_job_id(p.get()) == a[0]);
  ack_with(c, q, p.get(), "all");
  std::map<std::string, std::set<std::string>> byType;
  echomq_event_list *el = nullptr;
  EMQ_REQUIRE_OK(c, echomq_events_read(c, q.c_str(), "0", 1000, 0, &el));
  for (size_t i = 0; i < echomq_event_list_count(el); ++i) {
    std::string type, id;
    for (size_t k = 0; k < echomq_event_list_nfields(el, i); ++k) {
      std::string name = echomq_event_list_name(el, i, k);
      if (name == "type") type = echomq_event_list_value(el, i, k, nullptr);
      if (name == "id") id = echomq_event_list_value(el, i, k, nullptr);
    }
    byType[type].insert(id);
  }
  echomq_event_list_free(el);
  REQUIRE(byType["ready"] == std::set<std::string>{std::to_string(a[0])});
  REQUIRE(byType["dead"].count(std::to_string(b[0])) == 1);  // died of its child
  REQUIRE(byType["completed"].count(std::to_string(a[0])) == 1);
  // The parent's own outcome is retained like any job's; its children's went with its settlement.
  JobPtr done = get_job(c, q, a[0]);
  REQUIRE(echomq_job_state_of(done.get()) == ECHOMQ_JOB_COMPLETED);
  RawValkey r;
  REQUIRE(r.integer({"EXISTS", "emq:{" + q + "}:k:" + std::to_string(a[0])}) == 0);
  require_verified(c, q);
}
