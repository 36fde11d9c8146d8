// The C API of schedules (echomq/schedules.h) over the core
// (cpp/schedules.cpp): thin, every body guarded.
#include "echomq/schedules.h"

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "error.hpp"
#include "guard.hpp"
#include "handles.hpp"
#include "types.hpp"
#include "versioned.hpp"

// The core's numbers are the header's.
#define EMQ_SAME(core, c) static_assert(static_cast<long long>(echomq::core) == static_cast<long long>(c), #c)
EMQ_SAME(kScheduleNameMax, ECHOMQ_SCHEDULE_NAME_MAX);
EMQ_SAME(kScheduleEveryMaxMs, ECHOMQ_SCHEDULE_EVERY_MAX_MS);
EMQ_SAME(kScheduleCronMax, ECHOMQ_SCHEDULE_CRON_MAX);
EMQ_SAME(kScheduleZoneMax, ECHOMQ_SCHEDULE_ZONE_MAX);
EMQ_SAME(kScheduleFireMax, ECHOMQ_SCHEDULE_FIRE_MAX);
EMQ_SAME(kScheduleNextMax, ECHOMQ_SCHEDULE_NEXT_MAX);
EMQ_SAME(kScheduleListMax, ECHOMQ_SCHEDULE_LIST_MAX);
EMQ_SAME(kScheduleGraceDefaultMs, ECHOMQ_SCHEDULE_GRACE_DEFAULT_MS);
EMQ_SAME(kMissedFireOnce, ECHOMQ_MISSED_FIRE_ONCE);
EMQ_SAME(kMissedSkip, ECHOMQ_MISSED_SKIP);
EMQ_SAME(kOverlapFire, ECHOMQ_OVERLAP_FIRE);
EMQ_SAME(kOverlapSkip, ECHOMQ_OVERLAP_SKIP);
#undef EMQ_SAME

// A page of schedules: the core's infos, and the C view of each pointing
// into them.
struct echomq_schedule_list {
  std::vector<echomq::ScheduleInfo> core;
  std::vector<echomq_schedule_info> c;
  std::string next;
  bool has_next = false;
};

namespace {

using emqcapi::guarded;

echomq::ScheduleSpec readSpec(const echomq_schedule_options* opts) {
  if (!opts) echomq::invalid("schedule options are NULL (every_ms or cron, and lane, are required)");
  const echomq_schedule_options read =
      emqcapi::readVersioned(opts, echomq_schedule_options ECHOMQ_SCHEDULE_OPTIONS_INIT, "schedule options");
  const echomq_schedule_options* o = &read;
  if (!o->lane) echomq::invalid("schedule options: lane is NULL");
  if (o->payload_len > 0 && !o->payload) echomq::invalid("payload is NULL with a non-zero length");
  echomq::ScheduleSpec s;
  s.every_ms = o->every_ms;
  if (o->cron) s.cron = o->cron;
  if (o->zone) s.zone = o->zone;
  if (!s.cron.empty() && s.zone.empty()) s.zone = "UTC";
  s.lane = o->lane;
  if (o->payload_len) s.payload.assign(o->payload, o->payload_len);
  s.max_attempts = o->max_attempts;
  s.keep_ms = o->keep_ms;
  s.keep_last = o->keep_last;
  s.cost_estimate = o->cost_estimate;
  s.start_at_ms = o->start_at_ms;
  s.end_at_ms = o->end_at_ms;
  s.limit = o->limit;
  s.missed = o->missed;
  s.grace_ms = o->grace_ms;
  s.overlap = o->overlap;
  return s;
}

// The C view of core info i of list l (pointers into l->core[i]).
echomq_schedule_info view(const echomq::ScheduleInfo& s) {
  echomq_schedule_info c{};
  c.version = ECHOMQ_SCHEDULE_INFO_VERSION;
  c.name = s.name.c_str();
  c.every_ms = s.spec.every_ms;
  c.cron = s.spec.cron.c_str();
  c.zone = s.spec.zone.c_str();
  c.lane = s.spec.lane.c_str();
  c.payload = s.spec.payload.data();
  c.payload_len = s.spec.payload.size();
  c.max_attempts = s.spec.max_attempts;
  c.keep_ms = s.spec.keep_ms;
  c.keep_last = s.spec.keep_last;
  c.cost_estimate = s.spec.cost_estimate;
  c.start_at_ms = s.spec.start_at_ms;
  c.end_at_ms = s.spec.end_at_ms;
  c.limit = s.spec.limit;
  c.missed = s.spec.missed;
  c.grace_ms = s.spec.grace_ms;
  c.overlap = s.spec.overlap;
  c.paused = s.paused ? 1 : 0;
  c.ended = s.ended.c_str();
  c.next_at_ms = s.next_at_ms;
  c.last_tick_ms = s.last_tick_ms;
  c.fired_tick_ms = s.fired_tick_ms;
  c.fired_at_ms = s.fired_at_ms;
  c.fired_job = s.fired_job;
  c.fired_state = s.fired_state;
  c.runs = s.runs;
  c.skips = s.skips;
  c.created_at_ms = s.created_at_ms;
  c.updated_at_ms = s.updated_at_ms;
  return c;
}

echomq_schedule_list* makeList(std::vector<echomq::ScheduleInfo> v) {
  auto l = std::make_unique<echomq_schedule_list>();
  l->core = std::move(v);
  l->c.reserve(l->core.size());
  for (const auto& s : l->core) l->c.push_back(view(s));
  return l.release();
}

}  // namespace

extern "C" {

int echomq_schedule_options_init(echomq_schedule_options* opts, unsigned int version) {
  return emqcapi::initVersioned(opts, version, echomq_schedule_options ECHOMQ_SCHEDULE_OPTIONS_INIT);
}

int echomq_schedule_upsert(echomq_client* c, const char* queue, const char* name,
                           const echomq_schedule_options* opts, int* changed, int64_t* next_at_ms) {
  return guarded(c, [&] {
    echomq::ScheduleSpec spec = readSpec(opts);
    int64_t next = 0;
    int ch = c->core.upsertSchedule(queue, name, spec, next);
    if (changed) *changed = ch;
    if (next_at_ms) *next_at_ms = next;
  });
}

int echomq_schedule_remove(echomq_client* c, const char* queue, const char* name) {
  return guarded(c, [&] { c->core.removeSchedule(queue, name); });
}

int echomq_schedule_pause(echomq_client* c, const char* queue, const char* name) {
  return guarded(c, [&] { c->core.pauseSchedule(queue, name, true); });
}

int echomq_schedule_resume(echomq_client* c, const char* queue, const char* name) {
  return guarded(c, [&] { c->core.pauseSchedule(queue, name, false); });
}

size_t echomq_schedule_list_count(const echomq_schedule_list* l) { return l ? l->c.size() : 0; }
const echomq_schedule_info* echomq_schedule_list_at(const echomq_schedule_list* l, size_t i) {
  return l && i < l->c.size() ? &l->c[i] : nullptr;
}
const char* echomq_schedule_list_next(const echomq_schedule_list* l) {
  return l && l->has_next ? l->next.c_str() : nullptr;
}
void echomq_schedule_list_free(echomq_schedule_list* l) { delete l; }

int echomq_schedules(echomq_client* c, const char* queue, const char* after, size_t count,
                     echomq_schedule_list** out) {
  return guarded(c, [&] {
    if (!out) echomq::invalid("out is NULL");
    *out = nullptr;
    bool more = false;
    auto v = c->core.schedules(queue, after, count, more);
    echomq_schedule_list* l = makeList(std::move(v));
    if (more && !l->core.empty()) {
      l->has_next = true;
      l->next = l->core.back().name;
    }
    *out = l;
  });
}

int echomq_schedule_get(echomq_client* c, const char* queue, const char* name, echomq_schedule_list** out) {
  return guarded(c, [&] {
    if (!out) echomq::invalid("out is NULL");
    *out = nullptr;
    std::vector<echomq::ScheduleInfo> one;
    one.push_back(c->core.schedule(queue, name));
    *out = makeList(std::move(one));
  });
}

int echomq_schedule_next(echomq_client* c, const char* queue, const char* name, size_t n, int64_t* times,
                         size_t* count) {
  return guarded(c, [&] {
    if (!times) echomq::invalid("times is NULL");
    if (count) *count = 0;
    auto v = c->core.nextTicks(queue, name, n);
    for (size_t i = 0; i < v.size(); ++i) times[i] = v[i];
    if (count) *count = v.size();
  });
}

const char* echomq_job_schedule(const echomq_job* j, size_t* len) {
  if (len) *len = j ? j->j.schedule.size() : 0;
  return j ? j->j.schedule.c_str() : "";
}

int64_t echomq_job_tick_ms(const echomq_job* j) { return j ? j->j.tick_ms : 0; }

}  // extern "C"
