// Flows: the core's types for jobs that wait for other jobs of one queue
// (cpp/flows.cpp, lua/flow.lua, docs/architecture.md "Flows").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace echomq {

constexpr size_t kFlowMax = 1000;      // jobs in one flow (one script call)
constexpr size_t kFlowNameMax = 256;   // bytes of a job's name in its flow
// What a parent does when a child dies.
enum FlowOnFail : int { kFlowFail = 0, kFlowIgnore = 1, kFlowContinue = 2 };

// One job of a flow to enqueue, named in the flow; parent "" = a root;
// queue "" = the flow's.
struct FlowJob {
  std::string name, parent;
  int on_fail = kFlowFail;
  std::string queue, group, payload;
};

// A child as its parent sees it.
struct FlowChild {
  uint64_t id = 0;
  int state = 0;  // a JobState
  uint64_t attempts = 0;
  int64_t finished_at_ms = 0;  // 0 = not finished
  std::string error, result;
};

// A job's links in its flow.
struct FlowInfo {
  int state = 0;         // its own JobState (kJobWaiting while it waits)
  uint64_t parent = 0;   // 0 = none waits for it
  int on_fail = kFlowFail;
  uint64_t waiting = 0;  // its children not finished
  std::vector<FlowChild> children;
};

// Checks a flow for `queue` before any I/O (names, parents, cycles, the
// bound, queues, lanes, payloads up to max_payload) and returns each job's
// parent as a row number (1-based; 0 = a root). Throws kInvalid or
// kTooLarge with a message naming the job.
std::vector<size_t> flowRows(const char* queue, const std::vector<FlowJob>& jobs, size_t max_payload);

}  // namespace echomq
