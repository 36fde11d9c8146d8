// echomq/ops.h: jobs by id, purge, the queues of a server, sharded queues,
// the doctor.
#include "echomq/ops.h"

#include <memory>
#include <string>
#include <vector>

#include "guard.hpp"
#include "handles.hpp"

using emqcapi::guarded;
using emqcapi::requireOut;

namespace {

// A new report into *out (checked first), its lines filled by fill().
template <class F>
int reportInto(echomq_client* c, echomq_report** out, F&& fill) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    auto r = std::make_unique<echomq_report>();
    fill(r->lines);
    *out = r.release();
  });
}

}  // namespace

extern "C" {

/* ---- jobs and lanes ---- */

int echomq_get_job(echomq_client* c, const char* queue, uint64_t id, echomq_job** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    *out = new echomq_job{c->core.getJob(queue, id)};
  });
}

int echomq_delete_job(echomq_client* c, const char* queue, uint64_t id) {
  return guarded(c, [&] { c->core.deleteJob(queue, id); });
}

int echomq_purge_lane(echomq_client* c, const char* queue, const char* group, uint32_t max,
                      int clear_settings, uint64_t* cursor, uint64_t* removed, int* more) {
  return guarded(c, [&] {
    requireOut(cursor, "cursor");
    uint64_t cur = *cursor;
    bool m = false;
    uint64_t n = c->core.purgeLane(queue, group, max, clear_settings != 0, cur, m);
    *cursor = m ? cur : 0;
    if (removed) *removed = n;
    if (more) *more = m ? 1 : 0;
  });
}

int echomq_purge_lane_all(echomq_client* c, const char* queue, const char* group,
                          int clear_settings, uint64_t* removed) {
  return guarded(c, [&] {
    uint64_t cur = 0, total = 0;
    bool m = true;
    while (m) total += c->core.purgeLane(queue, group, ECHOMQ_PURGE_MAX, clear_settings != 0, cur, m);
    if (removed) *removed = total;
  });
}

int echomq_queues(echomq_client* c, echomq_report** out) {
  return reportInto(c, out, [&](std::vector<std::string>& lines) { lines = c->core.queues(); });
}

/* ---- sharded queues ---- */

int echomq_shards_create(echomq_client* c, const char* queue, uint32_t shards) {
  return guarded(c, [&] { c->core.createShards(queue, shards); });
}

int echomq_shards(echomq_client* c, const char* queue, echomq_report** out) {
  return reportInto(c, out, [&](std::vector<std::string>& lines) { lines = c->core.shardNames(queue); });
}

/* ---- doctor ---- */

int echomq_doctor(echomq_client* c, const char* queue, const char* acl_user, echomq_report** out,
                  int* worst) {
  if (worst) *worst = ECHOMQ_DOCTOR_OK;
  int w = ECHOMQ_DOCTOR_OK;
  int rc = reportInto(c, out, [&](std::vector<std::string>& lines) {
    static const char* const kLevel[] = {"ok", "warn", "fail"};
    for (auto& l : c->core.doctor(queue, acl_user)) {
      w = l.level > w ? l.level : w;
      lines.push_back(std::string(kLevel[l.level]) + " " + l.text);
    }
  });
  if (worst && rc == ECHOMQ_OK) *worst = w;
  return rc;
}

}  // extern "C"
