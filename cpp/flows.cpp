// Flows: enqueue a flow, a job's links, delete a flow. The queue logic is in
// the scripts (lua/flow.lua, flowinfo.lua, delflow.lua, includes/flow*.lua);
// here the checks before any I/O and the calls.
#include <string>
#include <unordered_map>

#include "args.hpp"
#include "client.hpp"
#include "error.hpp"
#include "replies_gen.hpp"
#include "script_reply.hpp"
#include "validate.hpp"

namespace echomq {

namespace {

std::string named(const FlowJob& j) { return "flow job '" + j.name + "'"; }

// Throws when following the parents from some job comes back to it.
void checkNoCycle(const std::vector<FlowJob>& jobs, const std::vector<size_t>& parent) {
  std::vector<int> state(jobs.size(), 0);  // 0 unseen, 1 on the walk, 2 done
  for (size_t i = 0; i < jobs.size(); ++i) {
    std::vector<size_t> path;
    size_t j = i + 1;
    while (j != 0 && state[j - 1] == 0) {
      state[j - 1] = 1;
      path.push_back(j - 1);
      j = parent[j - 1];
    }
    if (j != 0 && state[j - 1] == 1) {
      std::string loop = jobs[j - 1].name;
      for (size_t k = parent[j - 1]; k != j; k = parent[k - 1]) loop += " -> " + jobs[k - 1].name;
      invalid("flow holds a cycle: " + loop + " -> " + jobs[j - 1].name + " (each waits for the next)");
    }
    for (size_t k : path) state[k] = 2;
  }
}

}  // namespace

std::vector<size_t> flowRows(const char* queue, const std::vector<FlowJob>& jobs, size_t max_payload) {
  if (jobs.empty()) invalid("flow is empty");
  if (jobs.size() > kFlowMax)
    fail(kTooLarge, "flow holds " + std::to_string(jobs.size()) + " jobs, over the bound of " +
                        std::to_string(kFlowMax) + " a flow (nothing was enqueued)");
  std::unordered_map<std::string, size_t> row;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const FlowJob& j = jobs[i];
    if (j.name.empty() || j.name.size() > kFlowNameMax)
      invalid("flow job name must be 1.." + std::to_string(kFlowNameMax) + " bytes");
    if (!row.emplace(j.name, i + 1).second) invalid("flow names job '" + j.name + "' twice");
  }
  std::vector<size_t> parent(jobs.size(), 0);
  for (size_t i = 0; i < jobs.size(); ++i) {
    const FlowJob& j = jobs[i];
    if (!j.queue.empty() && j.queue != queue)
      invalid(named(j) + " is in queue '" + j.queue + "', not the flow's queue '" + queue +
              "': a flow lives in one queue, its jobs wait only for jobs of the same queue");
    if (j.on_fail < kFlowFail || j.on_fail > kFlowContinue) invalid(named(j) + " has a bad on_fail");
    checkLaneBytes(j.group.data(), j.group.size());
    if (j.payload.size() > max_payload)
      fail(kTooLarge, named(j) + ": payload of " + std::to_string(j.payload.size()) +
                          " bytes is over the limit of " + std::to_string(max_payload));
    if (j.parent.empty()) continue;
    auto p = row.find(j.parent);
    if (p == row.end()) invalid(named(j) + " names parent '" + j.parent + "', which is not in the flow");
    parent[i] = p->second;
  }
  checkNoCycle(jobs, parent);
  return parent;
}

std::vector<uint64_t> Client::enqueueFlow(const char* queue, const std::vector<FlowJob>& jobs,
                                          uint32_t max_attempts) {
  const QueueKeys& k = keysFor(queue);
  checkRange("max_attempts", max_attempts, 0, kAttemptsMax);
  std::vector<size_t> parent = flowRows(queue, jobs, opts_.max_payload);
  using L = args::Flow;
  ArgWriter<L> w = call<L>(Script::Flow, k);
  w.fixed(max_attempts);
  w.section<L::Jobs>(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i)
    w.row<L::Jobs>(parent[i], jobs[i].on_fail, jobs[i].group, jobs[i].payload);
  w.done();
  ReplyPtr r = run(Script::Flow);
  scriptStatus(r.get(), "flow");
  uint64_t first = u64(r.get(), 1 + reply::Enqueued::first, "flow");
  std::vector<uint64_t> ids(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) ids[i] = first + i;
  return ids;
}

FlowInfo Client::flowInfo(const char* queue, uint64_t id) {
  const QueueKeys& k = keysFor(queue);
  if (id == 0 || id > static_cast<uint64_t>(kIdMax)) invalid("job id out of range");
  call<args::Flowinfo>(Script::FlowInfo, k).fixed(id);
  ReplyPtr r = run(Script::FlowInfo);
  scriptStatus(r.get(), "flow info");
  using F = reply::Flow;
  using C = reply::Child;
  const redisReply* a = r.get();
  if (a->elements < 1 + F::kFields) echomq::fail(kProto, "flow info: unexpected reply length");
  FlowInfo out;
  out.state = static_cast<int>(i64(a, 1 + F::state, "flow state"));
  out.parent = u64(a, 1 + F::parent, "flow parent");
  out.on_fail = static_cast<int>(i64(a, 1 + F::on_fail, "flow on_fail"));
  out.waiting = u64(a, 1 + F::waiting, "flow waiting");
  uint64_t n = u64(a, 1 + F::count, "flow count");
  const size_t at = 1 + F::kFields;
  if (a->elements != at + n * C::kFields) echomq::fail(kProto, "flow info: unexpected reply length");
  out.children.resize(n);
  for (size_t i = 0; i < n; ++i) {
    size_t o = at + i * C::kFields;
    FlowChild& c = out.children[i];
    c.id = u64(a, o + C::id, "child id");
    c.state = static_cast<int>(i64(a, o + C::state, "child state"));
    c.attempts = u64(a, o + C::attempts, "child attempts");
    c.finished_at_ms = i64(a, o + C::finished_at, "child finished");
    c.error = str(a, o + C::error, "child error");
    c.result = str(a, o + C::result, "child result");
  }
  return out;
}

uint64_t Client::deleteFlow(const char* queue, uint64_t id) {
  const QueueKeys& k = keysFor(queue);
  if (id == 0 || id > static_cast<uint64_t>(kIdMax)) invalid("job id out of range");
  call<args::Delflow>(Script::DelFlow, k).fixed(id);
  ReplyPtr r = run(Script::DelFlow);
  scriptStatus(r.get(), "delete flow");
  return u64(r.get(), 1, "delete flow");
}

}  // namespace echomq
