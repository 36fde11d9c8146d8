// echomq/lifecycle.h: cancel, time limits, start deadlines, the queue-wide
// ceiling and rate, bursting lane limits. Thin: the core validates, the
// scripts decide (cpp/lifecycle.cpp).
#include "echomq/lifecycle.h"

#include <cstring>
#include <string>

#include "guard.hpp"
#include "handles.hpp"
#include "versioned.hpp"

using emqcapi::guarded;

extern "C" {

int echomq_cancel(echomq_client* c, const char* queue, uint64_t id, const char* reason, unsigned int flags,
                  int* was) {
  return guarded(c, [&] {
    if (flags & ~static_cast<unsigned int>(ECHOMQ_CANCEL_REMOVE)) echomq::invalid("cancel: unknown flags");
    const int state = c->core.cancelJob(queue, id, reason ? reason : "", (flags & ECHOMQ_CANCEL_REMOVE) != 0);
    if (was) *was = state;
  });
}

int echomq_set_default_timeout(echomq_client* c, const char* queue, int64_t timeout_ms) {
  return guarded(c, [&] { c->core.setDefaultTimeout(queue, timeout_ms); });
}

int echomq_set_queue_limit(echomq_client* c, const char* queue, uint32_t limit) {
  return guarded(c, [&] { c->core.setQueueLimit(queue, limit); });
}

int echomq_set_queue_rate(echomq_client* c, const char* queue, uint32_t jobs, int64_t period_ms, uint32_t burst) {
  return guarded(c, [&] { c->core.setQueueRate(queue, jobs, period_ms, burst); });
}

int echomq_set_limit_burst(echomq_client* c, const char* queue, const char* group, uint32_t limit,
                           uint32_t burst) {
  return guarded(c, [&] { c->core.setLimitBurst(queue, group, limit, burst); });
}

int echomq_get_lifecycle(echomq_client* c, const char* queue, echomq_lifecycle_settings* out) {
  return guarded(c, [&] {
    emqcapi::writeVersioned(out, "lifecycle settings", [&] {
      const echomq::LifeSettings s = c->core.lifeSettings(queue);
      echomq_lifecycle_settings o{};
      o.version = ECHOMQ_LIFECYCLE_SETTINGS_VERSION;
      o.default_timeout_ms = s.default_timeout_ms;
      o.queue_limit = s.queue_limit;
      o.rate_jobs = s.rate_jobs;
      o.rate_period_ms = s.rate_period_ms;
      o.rate_burst = s.rate_burst;
      o.leased = s.leased;
      o.tokens = s.tokens;
      o.next_token_at_ms = s.next_token_at_ms;
      return o;
    });
  });
}

int echomq_job_halted(const echomq_job* j) {
  if (!j || !j->j.halt) return 0;
  return j->j.halt->load();
}

int echomq_worker_next_halt(echomq_worker* w, int64_t timeout_ms, uint64_t* id, uint64_t* token, int* why) {
  return emqcapi::guard([&] {
    if (!w || !id || !token || !why) echomq::invalid("worker or an output is NULL");
    uint64_t i = 0, t = 0;
    int y = 0;
    if (!w->core.nextHalt(timeout_ms, i, t, y)) return ECHOMQ_EMPTY;
    *id = i;
    *token = t;
    *why = y;
    return ECHOMQ_OK;
  });
}

}  // extern "C"
