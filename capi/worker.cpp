// The extern "C" boundary of the worker engine (cpp/worker.hpp). Every body
// catches everything; no exception crosses it.
#include <cstddef>
#include <cstring>
#include <new>

#include "echomq/echomq.h"
#include "error.hpp"
#include "guard.hpp"
#include "handles.hpp"
#include "versioned.hpp"
#include "worker.hpp"

struct echomq_worker {
  echomq_worker(const char* url, const char* queue, const echomq::WorkerOptions& o)
      : core(url, queue, o) {}
  echomq::Worker core;
};

namespace {

using emqcapi::guard;

// Every settlement of a held job: done (ok) or fail, with what a report
// (may be NULL) or a bare result adds. A report's result and cost travel
// in the one settlement, so the job's lane is charged the reported cost.
int report(echomq_worker* w, const echomq_job* job, bool ok, int64_t delay, const char* reason,
           const echomq_job_report* r = nullptr, const char* result = nullptr, size_t result_len = 0) {
  if (!w || !job) return ECHOMQ_EINVAL;
  if (r && r->version != ECHOMQ_JOB_REPORT_VERSION && r->version != ECHOMQ_JOB_REPORT_VERSION_1)
    return ECHOMQ_EINVAL;
  if (r && r->cost > static_cast<uint64_t>(ECHOMQ_ID_MAX)) return ECHOMQ_EINVAL;
  if (r && r->version >= 2) {  // version 1 ends before the result
    result = r->result;
    result_len = r->result_len;
  }
  if (result_len > 0 && !result) return ECHOMQ_EINVAL;
  if (!ok && result_len > 0) return ECHOMQ_EINVAL;  // a failed job has no result
  int64_t cost = r && r->cost > 0 ? static_cast<int64_t>(r->cost) : echomq::Worker::kCostMeasured;
  return guard([&] {
    w->core.report(job->j.id, job->j.token, ok, delay, reason ? reason : "",
                   std::string(result ? result : "", result_len), cost);
    return ECHOMQ_OK;
  });
}

}  // namespace

extern "C" {

int echomq_worker_options_init(echomq_worker_options* opts, unsigned int version) {
  // A version-1 struct ends before the wait_* fields, a version-2 one before
  // target_wait_ms.
  if (opts && version == ECHOMQ_WORKER_OPTIONS_VERSION_2) {
    const echomq_worker_options d = ECHOMQ_WORKER_OPTIONS_INIT;
    std::memcpy(static_cast<void*>(opts), &d, offsetof(echomq_worker_options, target_wait_ms));
    opts->version = version;
    return ECHOMQ_OK;
  }
  return emqcapi::initOptions(opts, version, echomq_worker_options ECHOMQ_WORKER_OPTIONS_INIT,
                              ECHOMQ_WORKER_OPTIONS_VERSION_1, offsetof(echomq_worker_options, wait_replicas));
}

int echomq_worker_new(echomq_worker** out, const char* url, const char* queue,
                      const echomq_worker_options* opts) {
  if (!out) return ECHOMQ_EINVAL;
  *out = nullptr;
  if (!url || !queue) return ECHOMQ_EINVAL;
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  if (opts) {
    size_t size = 0;  // how much of the struct the caller's version has
    if (opts->version == ECHOMQ_WORKER_OPTIONS_VERSION_1) size = offsetof(echomq_worker_options, wait_replicas);
    else if (opts->version == ECHOMQ_WORKER_OPTIONS_VERSION_2) size = offsetof(echomq_worker_options, target_wait_ms);
    else if (opts->version == ECHOMQ_WORKER_OPTIONS_VERSION) size = sizeof o;
    else return ECHOMQ_EINVAL;
    std::memcpy(static_cast<void*>(&o), opts, size);
    // Built before latency-bounded prefetch: the fixed prefetch it asked for.
    if (opts->version != ECHOMQ_WORKER_OPTIONS_VERSION) o.target_wait_ms = 0;
    o.version = ECHOMQ_WORKER_OPTIONS_VERSION;
  }
  if (o.connect_timeout_ms < 1 || o.command_timeout_ms < 1) return ECHOMQ_EINVAL;
  if (!echomq::Durability::valid(o.wait_replicas, o.wait_aof, o.wait_timeout_ms)) return ECHOMQ_EINVAL;
  echomq::WorkerOptions wo;
  wo.client.timeouts.connect_ms = o.connect_timeout_ms;
  wo.client.timeouts.command_ms = o.command_timeout_ms;
  wo.client.durability.replicas = o.wait_replicas;
  wo.client.durability.aof = o.wait_aof != 0;
  wo.client.durability.timeout_ms = o.wait_timeout_ms;
  wo.slots = o.slots;
  wo.prefetch = o.prefetch;
  wo.lease_ms = o.lease_ms;
  wo.weighted = o.weighted != 0;
  wo.retry_delay_ms = o.retry_delay_ms;
  wo.idle_wait_ms = o.idle_wait_ms;
  wo.target_wait_ms = o.target_wait_ms;
  return guard([&] {
    *out = new echomq_worker(url, queue, wo);
    return ECHOMQ_OK;
  });
}

echomq_worker* echomq_worker_create(const char* url, const char* queue,
                                    const echomq_worker_options* opts) {
  echomq_worker* w = nullptr;
  return echomq_worker_new(&w, url, queue, opts) == ECHOMQ_OK ? w : nullptr;
}

int echomq_worker_start(echomq_worker* w) {
  if (!w) return ECHOMQ_EINVAL;
  return guard([&] {
    w->core.start();
    return ECHOMQ_OK;
  });
}

int echomq_worker_next(echomq_worker* w, int64_t timeout_ms, echomq_job** out) {
  if (out) *out = nullptr;
  if (!w || !out) return ECHOMQ_EINVAL;
  return guard([&] {
    echomq::Job j;
    if (!w->core.next(timeout_ms, j)) return static_cast<int>(ECHOMQ_EMPTY);
    *out = new echomq_job{std::move(j)};
    return static_cast<int>(ECHOMQ_OK);
  });
}

int echomq_worker_done(echomq_worker* w, const echomq_job* job) {
  return report(w, job, true, 0, nullptr);
}

int echomq_worker_fail(echomq_worker* w, const echomq_job* job, const char* reason,
                       int64_t retry_delay_ms) {
  return report(w, job, false, retry_delay_ms, reason);
}

int echomq_worker_done_result(echomq_worker* w, const echomq_job* job, const char* result,
                              size_t result_len) {
  return report(w, job, true, 0, nullptr, nullptr, result, result_len);
}

int echomq_job_report_init(echomq_job_report* r, unsigned int version) {
  return emqcapi::initOptions(r, version, echomq_job_report ECHOMQ_JOB_REPORT_INIT, ECHOMQ_JOB_REPORT_VERSION_1,
                              offsetof(echomq_job_report, result));
}

int echomq_worker_done_with(echomq_worker* w, const echomq_job* job, const echomq_job_report* r) {
  return report(w, job, true, 0, nullptr, r);
}

int echomq_worker_fail_with(echomq_worker* w, const echomq_job* job, const char* reason,
                            int64_t retry_delay_ms, const echomq_job_report* r) {
  return report(w, job, false, retry_delay_ms, reason, r);
}

int echomq_worker_discard(echomq_worker* w, const echomq_job* job, const char* reason) {
  return report(w, job, false, ECHOMQ_RETRY_DEAD, reason);
}

int echomq_worker_stop(echomq_worker* w, int mode, int64_t timeout_ms) {
  if (!w || (mode != ECHOMQ_STOP_DRAIN && mode != ECHOMQ_STOP_ABANDON)) return ECHOMQ_EINVAL;
  return guard([&] {
    return w->core.stop(mode == ECHOMQ_STOP_DRAIN, timeout_ms) ? ECHOMQ_OK : ECHOMQ_ETIMEOUT;
  });
}

int echomq_worker_stats_get(echomq_worker* w, echomq_worker_stats* out) {
  if (!w || !out ||
      (out->version != ECHOMQ_WORKER_STATS_VERSION && out->version != ECHOMQ_WORKER_STATS_VERSION_1))
    return ECHOMQ_EINVAL;
  return guard([&] {
    echomq::WorkerStats s = w->core.stats();
    out->claimed = s.claimed;
    out->done = s.done;
    out->failed = s.failed;
    out->released = s.released;
    out->extended = s.extended;
    out->lost = s.lost;
    out->round_trips = s.round_trips;
    out->errors = s.errors;
    out->running = s.running;
    out->buffered = s.buffered;
    out->retried = s.retried;
    out->delayed = s.delayed;
    out->dead = s.dead;
    if (out->version >= 2) out->unconfirmed = s.unconfirmed;
    return ECHOMQ_OK;
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
