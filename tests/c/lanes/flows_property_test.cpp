// Flows under random trees (depth <= 4, up to 200 jobs), random failures,
// lease expiries (a worker that dies holding its jobs), random policies and
// random cancels of waiting parents (echomq_cancel cascades): every parent
// runs only after its last child finished, never before; a parent whose
// child died under FLOW_FAIL dies and never runs; a job canceled before it
// ran never runs; no parent is lost (every job ends finished); verify stays
// clean throughout.
#include "flows_support.hpp"
#include "raw_valkey.hpp"

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace emqtest;

namespace {

struct Tree {
  std::vector<int> parent;  // -1 = a root
  std::vector<int> policy;
  std::vector<std::vector<int>> kids;
};

Tree randomTree(std::mt19937 &rng, int n) {
  Tree t;
  std::vector<int> depth;
  for (int i = 0; i < n; ++i) {
    int p = -1;
    if (i > 0 && rng() % 8 != 0) {
      p = static_cast<int>(rng() % i);
      if (depth[p] >= 3) p = -1;  // depth <= 4 levels
    }
    t.parent.push_back(p);
    depth.push_back(p < 0 ? 0 : depth[p] + 1);
    t.policy.push_back(static_cast<int>(rng() % 3));
  }
  t.kids.resize(n);
  for (int i = 0; i < n; ++i)
    if (t.parent[i] >= 0) t.kids[t.parent[i]].push_back(i);
  return t;
}

}  // namespace

// Node i (a parent that waits) and every node below it through parents
// that wait, that has not run (pending, delayed or waiting): what a cancel
// of i cancels now. (A parent that died already left its children to run
// on.)
void unrun(echomq_client *c, const std::string &q, const Tree &t, const std::vector<uint64_t> &idOf, int i,
           std::vector<int> &out) {
  out.push_back(i);
  for (int k : t.kids[i]) {
    const int st = state_of(c, q, idOf[k]);
    if (st == ECHOMQ_JOB_WAITING) unrun(c, q, t, idOf, k, out);
    else if (st == ECHOMQ_JOB_PENDING || st == ECHOMQ_JOB_DELAYED) out.push_back(k);
  }
}

TEST_CASE("flows: random trees with failures, expiries, policies and cancels", "[flows][property]") {
  ClientPtr cp = connect_client();
  echomq_client *c = cp.get();
  RawValkey raw;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    DYNAMIC_SECTION("seed " << seed) {
      std::mt19937 rng(seed);
      const std::string q = fresh_queue("flow-prop");
      const int n = 20 + static_cast<int>(rng() % 181);
      Tree t = randomTree(rng, n);
      // Added in a shuffled order: a parent may come after its children.
      std::vector<int> order(n);
      for (int i = 0; i < n; ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      std::vector<FlowJobSpec> spec;
      for (int i : order)
        spec.push_back({"n" + std::to_string(i), t.parent[i] < 0 ? "" : "n" + std::to_string(t.parent[i]),
                        t.policy[i], "L" + std::to_string(rng() % 5), std::to_string(i)});
      std::vector<uint64_t> ids = enqueue_flow(c, q, spec, 3);
      std::vector<uint64_t> idOf(n);
      for (size_t k = 0; k < order.size(); ++k) idOf[order[k]] = ids[k];
      require_verified(c, q);
      const std::string parents = "emq:{" + q + "}:parents";
      int rounds = 0, checkedParents = 0, cancels = 0;
      std::set<int> canceled;  // canceled before they ran: never claimed
      const int64_t until = mono_ms() + 60000;
      for (;;) {
        REQUIRE(mono_ms() < until);
        echomq_job_list *list = nullptr;
        int rc = echomq_claim_batch(c, q.c_str(), 60, 1 + rng() % 8, 0, &list);
        REQUIRE((rc == ECHOMQ_OK || rc == ECHOMQ_EMPTY));
        JobListPtr jobs(list);
        size_t got = rc == ECHOMQ_OK ? echomq_job_list_count(list) : 0;
        for (size_t k = 0; k < got; ++k) {
          const echomq_job *j = echomq_job_list_at(list, k);
          int node = std::stoi(payload_of(j));
          INFO("node " << node << " claimed after its cancel");
          REQUIRE(canceled.count(node) == 0);
          // Never before the last child: each child is gone (completed) or
          // dead, and none died under FLOW_FAIL.
          for (int kid : t.kids[node]) {
            int st = state_of(c, q, idOf[kid]);
            INFO("parent " << idOf[node] << " child " << idOf[kid] << " state " << st);
            REQUIRE((st == 0 || st == ECHOMQ_JOB_DEAD));
            if (st == ECHOMQ_JOB_DEAD) REQUIRE(t.policy[kid] != ECHOMQ_FLOW_FAIL);
          }
          if (!t.kids[node].empty()) ++checkedParents;
          unsigned r = rng() % 100;
          uint64_t id = echomq_job_id(j), token = echomq_job_token(j);
          if (r < 65) {
            std::string res = "r" + std::to_string(node);
            int st = echomq_ack_result(c, q.c_str(), id, token, res.data(), res.size());
            REQUIRE((st == ECHOMQ_OK || st == ECHOMQ_ESTALE));  // a slow ack may lose its lease
          } else if (r < 83) {
            int st = echomq_fail(c, q.c_str(), id, token, "boom", r < 78 ? 0 : ECHOMQ_RETRY_DEAD, nullptr);
            REQUIRE((st == ECHOMQ_OK || st == ECHOMQ_ESTALE));
          }  // else: the worker dies holding it; its lease runs out
        }
        if (rng() % 12 == 0) {
          // Cancel a parent that waits: it and every job below it that had
          // not run are canceled (dead); leased ones are left to settle.
          const int node = static_cast<int>(rng() % n);
          if (!t.kids[node].empty() && state_of(c, q, idOf[node]) == ECHOMQ_JOB_WAITING) {
            std::vector<int> waiting;
            unrun(c, q, t, idOf, node, waiting);
            int was = 0;
            EMQ_REQUIRE_OK(c, echomq_cancel(c, q.c_str(), idOf[node], nullptr, 0, &was));
            REQUIRE(was == ECHOMQ_JOB_WAITING);
            for (int b : waiting) {
              INFO("job " << idOf[b] << " below canceled " << idOf[node]);
              REQUIRE(state_of(c, q, idOf[b]) == ECHOMQ_JOB_DEAD);
              canceled.insert(b);
            }
            ++cancels;
            require_verified(c, q);
          }
        }
        if (++rounds % 25 == 0) require_verified(c, q);
        echomq_queue_stats s = stats(c, q);
        if (s.pending + s.leased + s.delayed == 0 && raw.integer({"ZCARD", parents}) == 0) break;
        if (got == 0) sleep_ms(20);
      }
      // No parent lost: every job finished; a FAIL child's death killed its parent.
      for (int i = 0; i < n; ++i) {
        int st = state_of(c, q, idOf[i]);
        REQUIRE((st == 0 || st == ECHOMQ_JOB_DEAD));
        for (int kid : t.kids[i]) {
          if (t.policy[kid] == ECHOMQ_FLOW_FAIL && state_of(c, q, idOf[kid]) == ECHOMQ_JOB_DEAD) {
            JobPtr p = get_job(c, q, idOf[i]);
            REQUIRE(echomq_job_state_of(p.get()) == ECHOMQ_JOB_DEAD);
          }
        }
      }
      require_verified(c, q);
      REQUIRE(raw.integer({"HLEN", "emq:{" + q + "}:deps"}) == 0);
      REQUIRE(raw.integer({"HLEN", "emq:{" + q + "}:up"}) == 0);
      INFO("parents run: " << checkedParents << ", cancels: " << cancels);
    }
  }
}
