// Cancel within flows (echomq/lifecycle.h, echomq/flows.h): cancelling a
// parent that waits for its children cancels every descendant that has not
// run (a running one is marked as any leased job is; finished ones stay);
// cancelling a child is a death with reason "canceled" to its parent's
// policy; a wrong-typed key refuses the call whole; verify stays clean.
#include "../lanes/flows_support.hpp"
#include "raw_valkey.hpp"

#include <set>
#include <string>
#include <vector>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

std::string lastError(echomq_client *c, const std::string &q, uint64_t id) {
  JobPtr j = get_job(c, q, id);
  return echomq_job_last_error(j.get());
}

// root <- a, b, mid; mid <- d, e (each leaf in a lane of its own).
std::vector<uint64_t> tree(echomq_client *c, const std::string &q) {
  return enqueue_flow(c, q, {{"root", "", 0, "r", "root"},
                             {"a", "root", 0, "la", "a"},
                             {"b", "root", 0, "lb", "b"},
                             {"mid", "root", 0, "m", "mid"},
                             {"d", "mid", 0, "ld", "d"},
                             {"e", "mid", ECHOMQ_FLOW_CONTINUE, "le", "e"}});
}

void requireNoLinks(RawValkey &raw, const std::string &q) {
  const std::string p = "emq:{" + q + "}:";
  REQUIRE(raw.integer({"ZCARD", p + "parents"}) == 0);
  REQUIRE(raw.integer({"HLEN", p + "deps"}) == 0);
  REQUIRE(raw.integer({"HLEN", p + "up"}) == 0);
}

// The parent id[0] runs next (claimed, then acked) and sees its child
// id[1] dead with error `err` among its 2 children's outcomes.
void requireParentSeesDeadChild(echomq_client *c, const std::string &q, const std::vector<uint64_t> &id,
                                const std::string &err) {
  JobPtr p = claim(c, q, kLease);
  REQUIRE(p);
  CHECK(echomq_job_id(p.get()) == id[0]);
  FlowInfoPtr fi = flow_info(c, q, id[0]);
  REQUIRE(echomq_flow_info_count(fi.get()) == 2);
  bool found = false;
  for (size_t i = 0; i < 2; ++i) {
    if (echomq_flow_info_child(fi.get(), i) != id[1]) continue;
    found = true;
    CHECK(echomq_flow_info_child_state(fi.get(), i) == ECHOMQ_JOB_DEAD);
    CHECK(child_error(fi.get(), i) == err);
  }
  CHECK(found);
  ack(c, q, p.get());
}

}  // namespace

TEST_CASE("cancelling a flow's parent cancels its children that have not run", "[cancel][flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  RawValkey raw;
  const std::string q = fresh_queue("cancel_flow");
  std::vector<uint64_t> id = tree(c, q);
  // One leaf runs to completion, another is running when the cancel comes.
  JobPtr done = claim(c, q, kLease);
  JobPtr held = claim(c, q, kLease);
  REQUIRE(done);
  REQUIRE(held);
  ack(c, q, done.get());
  const uint64_t doneId = echomq_job_id(done.get()), heldId = echomq_job_id(held.get());
  int was = 0;
  EMQ_REQUIRE_OK(c, echomq_cancel(c, q.c_str(), id[0], "pipeline aborted", 0, &was));
  CHECK(was == ECHOMQ_JOB_WAITING);
  require_verified(c, q);
  for (uint64_t j : id) {
    INFO("job " << j);
    if (j == doneId) {
      CHECK(state_of(c, q, j) == 0);  // finished: it stays so (acked, no retention)
    } else if (j == heldId) {
      CHECK(state_of(c, q, j) == ECHOMQ_JOB_LEASED);
    } else {
      CHECK(state_of(c, q, j) == ECHOMQ_JOB_DEAD);
      CHECK(lastError(c, q, j) == "canceled: pipeline aborted");
    }
  }
  // Nothing left to claim; the running one learns at its extension and
  // settles as canceled whatever it reports.
  CHECK_FALSE(claim(c, q, kLease));
  int64_t until = 0;
  EMQ_REQUIRE_STATUS(c, ECHOMQ_WAS_CANCELED,
                     echomq_extend(c, q.c_str(), heldId, echomq_job_token(held.get()), kLease, &until));
  EMQ_REQUIRE_STATUS(c, ECHOMQ_WAS_CANCELED, echomq_ack(c, q.c_str(), heldId, echomq_job_token(held.get())));
  CHECK(state_of(c, q, heldId) == ECHOMQ_JOB_DEAD);
  CHECK_FALSE(claim(c, q, kLease));
  echomq_queue_stats s = stats(c, q);
  CHECK(s.canceled_total == 5);
  CHECK(s.dead == 5);
  CHECK(s.pending + s.leased + s.delayed == 0);
  requireNoLinks(raw, q);
  require_verified(c, q);
  // Cancelling it again changes nothing.
  EMQ_REQUIRE_OK(c, echomq_cancel(c, q.c_str(), id[0], nullptr, 0, &was));
  CHECK(was == ECHOMQ_JOB_DEAD);
}

TEST_CASE("cancelling a middle parent cancels its subtree, and its own parent's policy applies", "[cancel][flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  RawValkey raw;
  for (int policy : {ECHOMQ_FLOW_FAIL, ECHOMQ_FLOW_CONTINUE}) {
    DYNAMIC_SECTION("policy " << policy) {
      const std::string q = fresh_queue("cancel_flow_mid");
      std::vector<uint64_t> id = enqueue_flow(c, q, {{"root", "", 0, "r", "root"},
                                                     {"mid", "root", policy, "m", "mid"},
                                                     {"d", "mid", 0, "ld", "d"},
                                                     {"other", "root", 0, "lo", "o"}});
      int was = 0;
      EMQ_REQUIRE_OK(c, echomq_cancel(c, q.c_str(), id[1], nullptr, 0, &was));
      CHECK(was == ECHOMQ_JOB_WAITING);
      CHECK(state_of(c, q, id[1]) == ECHOMQ_JOB_DEAD);
      CHECK(state_of(c, q, id[2]) == ECHOMQ_JOB_DEAD);
      require_verified(c, q);
      JobPtr o = claim(c, q, kLease);
      REQUIRE(o);
      CHECK(echomq_job_id(o.get()) == id[3]);
      ack(c, q, o.get());
      if (policy == ECHOMQ_FLOW_FAIL) {
        CHECK(state_of(c, q, id[0]) == ECHOMQ_JOB_DEAD);
        CHECK(lastError(c, q, id[0]) == "child " + std::to_string(id[1]) + " failed: canceled");
        CHECK_FALSE(claim(c, q, kLease));
      } else {
        requireParentSeesDeadChild(c, q, id, "canceled");
      }
      requireNoLinks(raw, q);
      require_verified(c, q);
    }
  }
}

TEST_CASE("cancel with the remove flag removes the waiting ones, and a removed child still counts down its parent",
          "[cancel][flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  RawValkey raw;
  SECTION("a parent removed with its waiting subtree") {
    const std::string q = fresh_queue("cancel_flow_rm");
    std::vector<uint64_t> id = tree(c, q);
    int was = 0;
    EMQ_REQUIRE_OK(c, echomq_cancel(c, q.c_str(), id[0], nullptr, ECHOMQ_CANCEL_REMOVE, &was));
    CHECK(was == ECHOMQ_JOB_WAITING);
    for (uint64_t j : id) CHECK(state_of(c, q, j) == 0);
    echomq_queue_stats s = stats(c, q);
    CHECK(s.canceled_total == 6);
    CHECK(s.dead == 0);
    CHECK_FALSE(claim(c, q, kLease));
    requireNoLinks(raw, q);
    require_verified(c, q);
  }
  SECTION("a child removed under FLOW_CONTINUE: its parent runs with it recorded dead") {
    const std::string q = fresh_queue("cancel_flow_rmkid");
    std::vector<uint64_t> id = enqueue_flow(
        c, q, {{"p", "", 0, "p", "P"}, {"x", "p", ECHOMQ_FLOW_CONTINUE, "x", "X"}, {"y", "p", 0, "y", "Y"}});
    EMQ_REQUIRE_OK(c, echomq_cancel(c, q.c_str(), id[1], "gone", ECHOMQ_CANCEL_REMOVE, nullptr));
    CHECK(state_of(c, q, id[1]) == 0);
    require_verified(c, q);
    JobPtr y = claim(c, q, kLease);
    REQUIRE(y);
    CHECK(echomq_job_id(y.get()) == id[2]);
    ack(c, q, y.get());
    requireParentSeesDeadChild(c, q, id, "canceled: gone");
    requireNoLinks(raw, q);
    require_verified(c, q);
  }
}

TEST_CASE("a cascade refused by a wrong-typed key changes nothing", "[cancel][flows]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  RawValkey raw;
  const std::string q = fresh_queue("cancel_flow_type");
  std::vector<uint64_t> id = tree(c, q);
  // Lane le's pending set (a grandchild's) of the wrong type: the root's
  // cancel would write it last; it is refused before its first write.
  const std::string bad = "emq:{" + q + "}:g:le:pending";
  raw.must({"RENAME", bad, bad + ":saved"});
  raw.must({"SET", bad, "x"});
  CHECK(echomq_cancel(c, q.c_str(), id[0], nullptr, 0, nullptr) == ECHOMQ_ESERVER);
  raw.must({"DEL", bad});
  raw.must({"RENAME", bad + ":saved", bad});
  for (size_t i = 0; i < id.size(); ++i)
    CHECK(state_of(c, q, id[i]) == (i == 0 || i == 3 ? ECHOMQ_JOB_WAITING : ECHOMQ_JOB_PENDING));
  CHECK(stats(c, q).canceled_total == 0);
  require_verified(c, q);
}
