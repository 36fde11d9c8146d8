// echomq/lanes.h: lane control on a client handle.
#include "echomq/lanes.h"

#include "guard.hpp"
#include "handles.hpp"

using emqcapi::guarded;

extern "C" {

int echomq_set_weight(echomq_client* c, const char* queue, const char* group, uint32_t weight) {
  return guarded(c, [&] {
    if (weight < 1) echomq::invalid("weight must be >= 1 (use echomq_clear_weight to reset)");
    c->core.setWeight(queue, group, weight);
  });
}
int echomq_clear_weight(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] { c->core.setWeight(queue, group, 0); });
}
int echomq_set_limit(echomq_client* c, const char* queue, const char* group, uint32_t limit) {
  return guarded(c, [&] {
    if (limit < 1) echomq::invalid("limit must be >= 1 (use echomq_clear_limit to remove it)");
    c->core.setLimit(queue, group, limit);
  });
}
int echomq_clear_limit(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] { c->core.setLimit(queue, group, 0); });
}
int echomq_pause(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] { c->core.setPaused(queue, group, true); });
}
int echomq_resume(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] { c->core.setPaused(queue, group, false); });
}
int echomq_set_default_weight(echomq_client* c, const char* queue, uint32_t weight) {
  return guarded(c, [&] {
    c->core.setDefault(queue, echomq::QueueDefault::Weight, weight);
  });
}
int echomq_set_default_limit(echomq_client* c, const char* queue, uint32_t limit) {
  return guarded(c, [&] {
    c->core.setDefault(queue, echomq::QueueDefault::Limit, limit);
  });
}
int echomq_set_default_max_attempts(echomq_client* c, const char* queue, uint32_t max_attempts) {
  return guarded(c, [&] {
    c->core.setDefault(queue, echomq::QueueDefault::MaxAttempts, max_attempts);
  });
}

int echomq_set_rate(echomq_client* c, const char* queue, const char* group, uint32_t jobs,
                    int64_t period_ms, uint32_t burst) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    if (jobs < 1) echomq::invalid("rate jobs must be >= 1 (use echomq_clear_rate to remove it)");
    c->core.setRate(queue, group, jobs, period_ms, burst);
  });
}
int echomq_clear_rate(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    c->core.setRate(queue, group, 0, 1, 0);
  });
}
int echomq_set_default_rate(echomq_client* c, const char* queue, uint32_t jobs, int64_t period_ms,
                            uint32_t burst) {
  return guarded(c, [&] { c->core.setRate(queue, nullptr, jobs, jobs ? period_ms : 1, burst); });
}
int echomq_set_cost_mode(echomq_client* c, const char* queue, uint64_t quantum) {
  return guarded(c, [&] {
    if (quantum > static_cast<uint64_t>(ECHOMQ_ID_MAX)) echomq::invalid("quantum must be 0..ECHOMQ_ID_MAX");
    c->core.costMode(queue, static_cast<int64_t>(quantum));
  });
}
int echomq_get_cost_mode(echomq_client* c, const char* queue, uint64_t* quantum) {
  return guarded(c, [&] {
    if (!quantum) echomq::invalid("quantum is NULL");
    *quantum = c->core.costMode(queue, -1);
  });
}
int echomq_set_wait_figures(echomq_client* c, const char* queue, uint32_t window_s) {
  return guarded(c, [&] {
    if (window_s > ECHOMQ_WAIT_WINDOW_MAX_S) echomq::invalid("window must be 0..ECHOMQ_WAIT_WINDOW_MAX_S s");
    c->core.waitFigures(queue, static_cast<int64_t>(window_s));
  });
}
int echomq_get_wait_figures(echomq_client* c, const char* queue, uint32_t* window_s) {
  return guarded(c, [&] {
    if (!window_s) echomq::invalid("window_s is NULL");
    *window_s = static_cast<uint32_t>(c->core.waitFigures(queue, -1));
  });
}
int echomq_charge(echomq_client* c, const char* queue, const char* group, uint64_t cost) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    if (cost > static_cast<uint64_t>(ECHOMQ_ID_MAX)) echomq::invalid("cost must be 0..ECHOMQ_ID_MAX");
    c->core.charge(queue, group, cost);
  });
}
int echomq_throttle(echomq_client* c, const char* queue, const char* group, int64_t ms) {
  return guarded(c, [&] { c->core.throttle(queue, group, ms); });
}
int echomq_set_cap(echomq_client* c, const char* queue, const char* group, uint64_t cap) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    if (cap < 1) echomq::invalid("cap must be >= 1 (use echomq_clear_cap to remove it)");
    c->core.setCap(queue, group, cap);
  });
}
int echomq_clear_cap(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    c->core.setCap(queue, group, 0);
  });
}
int echomq_set_default_cap(echomq_client* c, const char* queue, uint64_t cap) {
  return guarded(c, [&] { c->core.setCap(queue, nullptr, cap); });
}

}  // extern "C"
