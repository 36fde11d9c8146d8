// echomq/inspect.h: figures, lanes, dead letters, reports, verify, repair.
#include "echomq/inspect.h"

#include <memory>
#include <string>
#include <vector>

#include "guard.hpp"
#include "handles.hpp"
#include "mapping.hpp"
#include "versioned.hpp"

using emqcapi::guarded;
using emqcapi::requireOut;

extern "C" {

/* ---- figures ---- */

int echomq_stats(echomq_client* c, const char* queue, echomq_queue_stats* out) {
  return guarded(c, [&] {
    emqcapi::writeVersioned(out, "stats", [&] { return emqcapi::toC(c->core.stats(queue)); });
  });
}

int echomq_lane(echomq_client* c, const char* queue, const char* group, echomq_lane_info* out) {
  return guarded(c, [&] {
    emqcapi::writeVersioned(out, "lane", [&] { return emqcapi::toC(c->core.lane(queue, group)); });
  });
}

size_t echomq_lane_list_count(const echomq_lane_list* l) { return l ? l->lanes.size() : 0; }
const echomq_lane_info* echomq_lane_list_at(const echomq_lane_list* l, size_t i) {
  return l && i < l->lanes.size() ? &l->lanes[i] : nullptr;
}
const char* echomq_lane_list_next(const echomq_lane_list* l) {
  return l && l->has_next ? l->next.c_str() : nullptr;
}
void echomq_lane_list_free(echomq_lane_list* l) { delete l; }

int echomq_lanes(echomq_client* c, const char* queue, const char* after, size_t count,
                 echomq_lane_list** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    auto l = std::make_unique<echomq_lane_list>();
    bool more = false;
    for (const echomq::LaneInfo& x : c->core.lanes(queue, after, count, more)) l->lanes.push_back(emqcapi::toC(x));
    l->has_next = more && !l->lanes.empty();
    if (l->has_next) l->next = l->lanes.back().group;
    *out = l.release();
  });
}

/* ---- dead letters ---- */

int echomq_dead(echomq_client* c, const char* queue, uint64_t offset, size_t count,
                echomq_job_list** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    *out = echomq_job_list::of(c->core.dead(queue, offset, count));
  });
}

int echomq_redrive(echomq_client* c, const char* queue, const uint64_t* ids, size_t n,
                   uint64_t* redriven) {
  return guarded(c, [&] {
    uint64_t m = c->core.redrive(queue, ids, n);
    if (redriven) *redriven = m;
  });
}

int echomq_redrive_all(echomq_client* c, const char* queue, uint64_t* redriven) {
  return guarded(c, [&] {
    uint64_t m = c->core.redriveAll(queue);
    if (redriven) *redriven = m;
  });
}

/* ---- reports ---- */

size_t echomq_report_count(const echomq_report* r) { return r ? r->lines.size() : 0; }
const char* echomq_report_at(const echomq_report* r, size_t i) {
  return r && i < r->lines.size() ? r->lines[i].c_str() : nullptr;
}
void echomq_report_free(echomq_report* r) { delete r; }
const char* echomq_report_cursor(const echomq_report* r) {
  return r && !r->cursor.empty() ? r->cursor.c_str() : nullptr;
}

/* ---- verify and repair ---- */

int echomq_verify(echomq_client* c, const char* queue, echomq_report** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    *out = new echomq_report{c->core.verify(queue), {}};
  });
}

int echomq_repair(echomq_client* c, const char* queue, int apply, const char* cursor,
                  size_t count, echomq_report** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    std::string from = cursor ? cursor : "";
    // A cursor is "<phase> <position> <count> <hex>:<n>:<n> ...".
    for (char ch : from)
      if (!(ch == ' ' || ch == ':' || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
            (ch >= 'A' && ch <= 'Z')))
        echomq::invalid("cursor is not one a repair returned");
    auto r = std::make_unique<echomq_report>();
    r->cursor = c->core.repair(queue, apply != 0, from, count, r->lines);
    *out = r.release();
  });
}

}  // extern "C"
