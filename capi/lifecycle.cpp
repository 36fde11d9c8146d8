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

}  // extern "C"
