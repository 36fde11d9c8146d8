// echomq/lifecycle.h: cancel, time limits, start deadlines, the queue-wide
// ceiling and rate, bursting lane limits. Thin: the core validates, the
// scripts decide (cpp/lifecycle.cpp).
#include "echomq/lifecycle.h"

#include <cstring>
#include <string>

#include "guard.hpp"
#include "handles.hpp"

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
