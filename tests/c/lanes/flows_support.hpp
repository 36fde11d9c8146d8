// Flows in tests: a flow built from a list, its ids, a job's links.
#pragma once

#include "test_env.hpp"

#include <memory>
#include <string>
#include <vector>

namespace emqtest {

struct FlowJobSpec {
  std::string name, parent;
  int on_fail = ECHOMQ_FLOW_FAIL;
  std::string group, payload;
  std::string queue = {};  // "" = the flow's
};

using echomq::FlowInfoPtr;
using echomq::FlowPtr;

// Builds the flow (asserts each add worked).
inline FlowPtr make_flow(const std::vector<FlowJobSpec> &jobs) {
  FlowPtr f(echomq_flow_create());
  REQUIRE(f);
  for (const FlowJobSpec &j : jobs)
    REQUIRE(echomq_flow_add(f.get(), j.name.c_str(), j.parent.empty() ? nullptr : j.parent.c_str(), j.on_fail,
                            j.queue.empty() ? nullptr : j.queue.c_str(), j.group.c_str(), j.payload.data(),
                            j.payload.size()) == ECHOMQ_OK);
  return f;
}

// Enqueues the flow (asserts success); returns the ids in the order given.
inline std::vector<uint64_t> enqueue_flow(echomq_client *c, const std::string &q,
                                          const std::vector<FlowJobSpec> &jobs, uint32_t max_attempts = 0) {
  FlowPtr f = make_flow(jobs);
  EMQ_REQUIRE_OK(c, echomq_enqueue_flow(c, q.c_str(), f.get(), max_attempts));
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < jobs.size(); ++i) ids.push_back(echomq_flow_id(f.get(), i));
  return ids;
}

inline FlowInfoPtr flow_info(echomq_client *c, const std::string &q, uint64_t id) {
  echomq_flow_info *raw = nullptr;
  EMQ_REQUIRE_OK(c, echomq_flow_info_get(c, q.c_str(), id, &raw));
  return FlowInfoPtr(raw);
}

inline std::string child_result(const echomq_flow_info *fi, size_t i) {
  size_t n = 0;
  const char *p = echomq_flow_info_child_result(fi, i, &n);
  return std::string(p, n);
}

inline std::string child_error(const echomq_flow_info *fi, size_t i) {
  size_t n = 0;
  const char *p = echomq_flow_info_child_error(fi, i, &n);
  return std::string(p, n);
}

// The state of job id (ECHOMQ_JOB_*), or 0 when it is gone.
inline int state_of(echomq_client *c, const std::string &q, uint64_t id) {
  echomq_job *raw = nullptr;
  int rc = echomq_get_job(c, q.c_str(), id, &raw);
  if (rc == ECHOMQ_ENOTFOUND) return 0;
  REQUIRE(rc == ECHOMQ_OK);
  int st = echomq_job_state_of(raw);
  echomq_job_free(raw);
  return st;
}

}  // namespace emqtest
