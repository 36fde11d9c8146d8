// echomq/worker.h: the worker engine (cpp/worker.hpp) behind the C API.
#include "echomq/worker.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "guard.hpp"
#include "handles.hpp"
#include "mapping.hpp"
#include "versioned.hpp"
#include "worker.hpp"

namespace {

using emqcapi::guard;

// The engine's defaults: every field of the core's options is set from these.
constexpr echomq_worker_options kDefaults = ECHOMQ_WORKER_OPTIONS_INIT;

// The engine's options from the caller's struct of any version.
echomq::WorkerOptions readOptions(const echomq_worker_options* opts) {
  const echomq_worker_options o = emqcapi::readVersioned(opts, kDefaults, "worker options");
  echomq::WorkerOptions wo;
  emqcapi::setConnection(wo.client, o.connect_timeout_ms, o.command_timeout_ms, o.wait_replicas, o.wait_aof,
                         o.wait_timeout_ms);
  if (o.report_outcomes != 0 && o.report_outcomes != 1) echomq::invalid("report_outcomes must be 0 or 1");
  wo.slots = o.slots;
  wo.prefetch = o.prefetch;
  wo.lease_ms = o.lease_ms;
  wo.weighted = o.weighted != 0;
  wo.retry_delay_ms = o.retry_delay_ms;
  wo.idle_wait_ms = o.idle_wait_ms;
  // Built before latency-bounded prefetch: the fixed prefetch it asked for.
  wo.target_wait_ms = o.version >= 3 ? o.target_wait_ms : 0;
  wo.idle_timeout_ms = o.idle_timeout_ms;
  wo.report_outcomes = o.report_outcomes != 0;
  return wo;
}

// Every report of a held job: done (ok) or fail, with what a report (may
// be NULL) or a bare result adds. A report's result and cost travel in the
// one settlement, so the job's lane is charged the reported cost.
int report(echomq_worker* w, const echomq_job* job, bool ok, int64_t delay, const char* reason,
           const echomq_job_report* r = nullptr, const char* result = nullptr, size_t result_len = 0) {
  if (!w || !job) return ECHOMQ_EINVAL;
  return guard([&] {
    const echomq_job_report rep = emqcapi::readVersioned(r, echomq_job_report ECHOMQ_JOB_REPORT_INIT, "job report");
    if (r && r->version >= 2) {  // version 1 ends before the result
      result = rep.result;
      result_len = rep.result_len;
    }
    const char* dropped = rep.result_dropped;  // NULL before version 3
    if (rep.cost > static_cast<uint64_t>(ECHOMQ_ID_MAX)) echomq::invalid("report cost is over ECHOMQ_ID_MAX");
    if (result_len > 0 && !result) echomq::invalid("result is NULL with a non-zero length");
    if (!ok && (result_len > 0 || dropped)) echomq::invalid("a failed job has no result");
    if (dropped && result_len > 0) echomq::invalid("a result is either kept or dropped, not both");
    const int64_t cost = rep.cost > 0 ? static_cast<int64_t>(rep.cost) : echomq::Worker::kCostMeasured;
    return w->core.report(job->j.id, job->j.token, ok, delay, reason ? reason : "",
                          std::string(result ? result : "", result_len), cost, dropped ? dropped : "");
  });
}

}  // namespace

extern "C" {

int echomq_worker_options_init(echomq_worker_options* opts, unsigned int version) {
  return emqcapi::initVersioned(opts, version, kDefaults);
}

int echomq_worker_new(echomq_worker** out, const char* url, const char* queue,
                      const echomq_worker_options* opts) {
  if (!out) return ECHOMQ_EINVAL;
  *out = nullptr;
  if (!url || !queue) return ECHOMQ_EINVAL;
  return guard([&] { *out = new echomq_worker(url, queue, readOptions(opts)); });
}

echomq_worker* echomq_worker_create(const char* url, const char* queue,
                                    const echomq_worker_options* opts) {
  echomq_worker* w = nullptr;
  return echomq_worker_new(&w, url, queue, opts) == ECHOMQ_OK ? w : nullptr;
}

int echomq_worker_start(echomq_worker* w) {
  if (!w) return ECHOMQ_EINVAL;
  return guard([&] { w->core.start(); });
}

int echomq_worker_next(echomq_worker* w, int64_t timeout_ms, echomq_job** out) {
  if (out) *out = nullptr;
  if (!w || !out) return ECHOMQ_EINVAL;
  return guard([&] {
    echomq::Job j;
    if (!w->core.next(timeout_ms, j)) return ECHOMQ_EMPTY;
    *out = new echomq_job{std::move(j)};
    return ECHOMQ_OK;
  });
}

int echomq_worker_done(echomq_worker* w, const echomq_job* job) { return report(w, job, true, 0, nullptr); }

int echomq_worker_fail(echomq_worker* w, const echomq_job* job, const char* reason, int64_t retry_delay_ms) {
  return report(w, job, false, retry_delay_ms, reason);
}

int echomq_worker_discard(echomq_worker* w, const echomq_job* job, const char* reason) {
  return report(w, job, false, ECHOMQ_RETRY_DEAD, reason);
}

int echomq_worker_done_result(echomq_worker* w, const echomq_job* job, const char* result, size_t result_len) {
  return report(w, job, true, 0, nullptr, nullptr, result, result_len);
}

int echomq_job_report_init(echomq_job_report* r, unsigned int version) {
  return emqcapi::initVersioned(r, version, echomq_job_report ECHOMQ_JOB_REPORT_INIT);
}

int echomq_worker_done_with(echomq_worker* w, const echomq_job* job, const echomq_job_report* r) {
  return report(w, job, true, 0, nullptr, r);
}

int echomq_worker_fail_with(echomq_worker* w, const echomq_job* job, const char* reason,
                            int64_t retry_delay_ms, const echomq_job_report* r) {
  return report(w, job, false, retry_delay_ms, reason, r);
}

int echomq_worker_stop(echomq_worker* w, int mode, int64_t timeout_ms) {
  if (!w || (mode != ECHOMQ_STOP_DRAIN && mode != ECHOMQ_STOP_ABANDON)) return ECHOMQ_EINVAL;
  return guard([&] { return w->core.stop(mode == ECHOMQ_STOP_DRAIN, timeout_ms) ? ECHOMQ_OK : ECHOMQ_ETIMEOUT; });
}

int echomq_worker_stats_get(echomq_worker* w, echomq_worker_stats* out) {
  if (!w) return ECHOMQ_EINVAL;
  return guard([&] {
    emqcapi::writeVersioned(out, "worker stats", [&] { return emqcapi::toC(w->core.stats()); });
  });
}

int echomq_worker_last_error(echomq_worker* w, char* buf, size_t cap) {
  if (!w) return ECHOMQ_EINVAL;
  return guard([&] {
    int code = 0;
    std::string m = w->core.lastError(&code);
    if (buf && cap > 0) {
      size_t n = std::min(m.size(), cap - 1);
      std::memcpy(buf, m.data(), n);
      buf[n] = '\0';
    }
    return code;
  });
}

void echomq_worker_free(echomq_worker* w) {
  try {
    delete w;
  } catch (...) {
  }
}

}  // extern "C"
