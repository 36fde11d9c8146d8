// echomq/outcomes.h: retention, events, progress, waiting for a job.
#include "echomq/outcomes.h"

#include <memory>

#include "guard.hpp"
#include "handles.hpp"
#include "versioned.hpp"

using emqcapi::guarded;
using emqcapi::requireOut;

extern "C" {

int echomq_set_retention(echomq_client* c, const char* queue, int64_t keep_ms, uint64_t keep_last) {
  return guarded(c, [&] { c->core.setRetention(queue, keep_ms, keep_last); });
}

int echomq_clear_retention(echomq_client* c, const char* queue) {
  return guarded(c, [&] { c->core.clearRetention(queue); });
}

int echomq_set_events(echomq_client* c, const char* queue, uint64_t max_len, int flags) {
  return guarded(c, [&] {
    if (flags & ~ECHOMQ_EVENTS_ENQUEUED) echomq::invalid("unknown event flags");
    c->core.setEvents(queue, max_len, (flags & ECHOMQ_EVENTS_ENQUEUED) != 0);
  });
}

int echomq_clear_events(echomq_client* c, const char* queue) {
  return guarded(c, [&] { c->core.clearEvents(queue); });
}

int echomq_get_outcomes(echomq_client* c, const char* queue, echomq_outcome_settings* out) {
  return guarded(c, [&] {
    emqcapi::writeVersioned(out, "outcome settings", [&] {
      const echomq::OutcomeSettings o = c->core.outcomeSettings(queue);
      echomq_outcome_settings r{};
      r.version = ECHOMQ_OUTCOME_SETTINGS_VERSION;
      r.keep_ms = o.keep_ms;
      r.keep_last = o.keep_last;
      r.events_max_len = o.events_max_len;
      r.events_flags = o.events_enqueued ? ECHOMQ_EVENTS_ENQUEUED : 0;
      return r;
    });
  });
}

int echomq_progress(echomq_client* c, const char* queue, uint64_t id, uint64_t token, const char* value,
                    size_t value_len) {
  return guarded(c, [&] { c->core.progress(queue, id, token, value, value_len); });
}

int echomq_wait_job(echomq_client* c, const char* queue, uint64_t id, int64_t timeout_ms, echomq_job** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    echomq::Job j;
    if (!c->core.waitJob(queue, id, timeout_ms, j)) return ECHOMQ_PENDING;
    *out = new echomq_job{std::move(j)};
    return ECHOMQ_OK;
  });
}

int echomq_events_read(echomq_client* c, const char* queue, const char* after, size_t count, int64_t block_ms,
                       echomq_event_list** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    if (!after) echomq::invalid("after is NULL");
    auto l = std::make_unique<echomq_event_list>();
    l->entries = c->core.readEvents(queue, after, count, block_ms);
    *out = l.release();
  });
}

size_t echomq_event_list_count(const echomq_event_list* l) { return l ? l->entries.size() : 0; }
const char* echomq_event_list_id(const echomq_event_list* l, size_t i) {
  return l && i < l->entries.size() ? l->entries[i][0].c_str() : nullptr;
}
size_t echomq_event_list_nfields(const echomq_event_list* l, size_t i) {
  return l && i < l->entries.size() ? (l->entries[i].size() - 1) / 2 : 0;
}
const char* echomq_event_list_name(const echomq_event_list* l, size_t i, size_t k) {
  if (!l || i >= l->entries.size() || 3 + 2 * k > l->entries[i].size()) return nullptr;
  return l->entries[i][1 + 2 * k].c_str();
}
const char* echomq_event_list_value(const echomq_event_list* l, size_t i, size_t k, size_t* len) {
  if (len) *len = 0;
  if (!l || i >= l->entries.size() || 3 + 2 * k > l->entries[i].size()) return nullptr;
  const std::string& v = l->entries[i][2 + 2 * k];
  if (len) *len = v.size();
  return v.c_str();
}
void echomq_event_list_free(echomq_event_list* l) { delete l; }

}  // extern "C"
