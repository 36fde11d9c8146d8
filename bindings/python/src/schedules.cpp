// schedules.cpp: the schedule calls of echomq._echomq (echomq/schedules.h).
// Arguments arrive checked and converted by echomq/schedules.py; each call
// copies them out, releases the GIL around the C call, and hands back plain
// values (dicts, tuples, ints).
#include "schedules.hpp"

#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "bind.hpp"

namespace py = pybind11;

namespace emqpy {
namespace {

using ScheduleListPtr = echomq::ScheduleListPtr;

py::dict info_dict(const echomq_schedule_info &s) {
  py::dict d;
  d["name"] = text(s.name);
  d["every_ms"] = s.every_ms;
  d["cron"] = text(s.cron);
  d["zone"] = text(s.zone);
  d["lane"] = text(s.lane);
  d["payload"] = py::bytes(s.payload ? s.payload : "", s.payload_len);
  d["max_attempts"] = s.max_attempts;
  d["keep_ms"] = s.keep_ms;
  d["keep_last"] = s.keep_last;
  d["cost_estimate"] = s.cost_estimate;
  d["start_at_ms"] = s.start_at_ms;
  d["end_at_ms"] = s.end_at_ms;
  d["limit"] = s.limit;
  d["missed"] = s.missed;
  d["grace_ms"] = s.grace_ms;
  d["overlap"] = s.overlap;
  d["paused"] = s.paused != 0;
  d["ended"] = text(s.ended);
  d["next_at_ms"] = s.next_at_ms;
  d["last_tick_ms"] = s.last_tick_ms;
  d["fired_tick_ms"] = s.fired_tick_ms;
  d["fired_at_ms"] = s.fired_at_ms;
  d["fired_job"] = s.fired_job;
  d["fired_state"] = s.fired_state;
  d["runs"] = s.runs;
  d["skips"] = s.skips;
  d["created_at_ms"] = s.created_at_ms;
  d["updated_at_ms"] = s.updated_at_ms;
  return d;
}

py::list info_list(const echomq_schedule_list *l) {
  py::list out;
  for (size_t i = 0; i < echomq_schedule_list_count(l); ++i) out.append(info_dict(*echomq_schedule_list_at(l, i)));
  return out;
}

}  // namespace

void register_schedules(py::module_ &m) {
  m.attr("SCHEDULE_NAME_MAX") = ECHOMQ_SCHEDULE_NAME_MAX;
  m.attr("SCHEDULE_EVERY_MAX_MS") = ECHOMQ_SCHEDULE_EVERY_MAX_MS;
  m.attr("SCHEDULE_NEXT_MAX") = ECHOMQ_SCHEDULE_NEXT_MAX;
  m.attr("SCHEDULE_LIST_MAX") = ECHOMQ_SCHEDULE_LIST_MAX;
  m.attr("SCHEDULE_GRACE_DEFAULT_MS") = ECHOMQ_SCHEDULE_GRACE_DEFAULT_MS;
  m.attr("MISSED_FIRE_ONCE") = int(ECHOMQ_MISSED_FIRE_ONCE);
  m.attr("MISSED_SKIP") = int(ECHOMQ_MISSED_SKIP);
  m.attr("OVERLAP_FIRE") = int(ECHOMQ_OVERLAP_FIRE);
  m.attr("OVERLAP_SKIP") = int(ECHOMQ_OVERLAP_SKIP);

  m.def(
      "schedule_upsert",
      [](Client &self, const std::string &queue, const std::string &name, int64_t every_ms, const std::string &cron,
         const std::string &zone, const std::string &lane, const py::bytes &payload, uint32_t max_attempts,
         int64_t keep_ms, uint64_t keep_last, uint64_t cost_estimate, int64_t start_ms, int64_t end_ms,
         uint64_t limit, int missed, int64_t grace_ms, int overlap) {
        echomq_schedule_options o = ECHOMQ_SCHEDULE_OPTIONS_INIT;
        std::string p = payload;  // copied: the call runs without the GIL
        o.every_ms = every_ms;
        o.cron = cron.empty() ? nullptr : cstr(cron, "cron");
        o.zone = zone.empty() ? nullptr : cstr(zone, "zone");
        o.lane = cstr(lane, "lane");
        o.payload = p.data();
        o.payload_len = p.size();
        o.max_attempts = max_attempts;
        o.keep_ms = keep_ms;
        o.keep_last = keep_last;
        o.cost_estimate = cost_estimate;
        o.start_at_ms = start_ms;
        o.end_at_ms = end_ms;
        o.limit = limit;
        o.missed = missed;
        o.grace_ms = grace_ms;
        o.overlap = overlap;
        const char *q = cstr(queue, "queue name");
        const char *n = cstr(name, "schedule name");
        int changed = 0;
        int64_t next = 0;
        {
          py::gil_scoped_release nogil;
          self.call([&](echomq_client *c) { return echomq_schedule_upsert(c, q, n, &o, &changed, &next); });
        }
        return py::make_tuple(changed, next);
      },
      py::arg("client"), py::arg("queue"), py::arg("name"), py::arg("every_ms"), py::arg("cron"), py::arg("zone"),
      py::arg("lane"), py::arg("payload"), py::arg("max_attempts"), py::arg("keep_ms"), py::arg("keep_last"),
      py::arg("cost_estimate"), py::arg("start_ms"), py::arg("end_ms"), py::arg("limit"), py::arg("missed"),
      py::arg("grace_ms"), py::arg("overlap"), "Create or change a schedule: (changed, next tick ms).");

  auto byName = [&m](const char *fname, int (*fn)(echomq_client *, const char *, const char *), const char *doc) {
    m.def(
        fname,
        [fn](Client &self, const std::string &queue, const std::string &name) {
          const char *q = cstr(queue, "queue name");
          const char *n = cstr(name, "schedule name");
          py::gil_scoped_release nogil;
          self.call([&](echomq_client *c) { return fn(c, q, n); });
        },
        py::arg("client"), py::arg("queue"), py::arg("name"), doc);
  };
  byName("schedule_remove", &echomq_schedule_remove, "Remove a schedule.");
  byName("schedule_pause", &echomq_schedule_pause, "Pause a schedule.");
  byName("schedule_resume", &echomq_schedule_resume, "Resume a schedule.");

  m.def(
      "schedules_page",
      [](Client &self, const std::string &queue, const std::string &after, size_t count) {
        const char *q = cstr(queue, "queue name");
        const char *a = cstr(after, "after");
        ScheduleListPtr l;
        {
          py::gil_scoped_release nogil;
          echomq_schedule_list *raw = nullptr;
          self.call([&](echomq_client *c) { return echomq_schedules(c, q, a, count, &raw); });
          l.reset(raw);
        }
        const char *next = echomq_schedule_list_next(l.get());
        return py::make_tuple(info_list(l.get()), next ? py::object(text(next)) : py::object(py::none()));
      },
      py::arg("client"), py::arg("queue"), py::arg("after"), py::arg("count"),
      "A page of schedules: (list of dicts, next cursor or None).");
  m.def(
      "schedule_get",
      [](Client &self, const std::string &queue, const std::string &name) {
        const char *q = cstr(queue, "queue name");
        const char *n = cstr(name, "schedule name");
        ScheduleListPtr l;
        {
          py::gil_scoped_release nogil;
          echomq_schedule_list *raw = nullptr;
          self.call([&](echomq_client *c) { return echomq_schedule_get(c, q, n, &raw); });
          l.reset(raw);
        }
        return info_dict(*echomq_schedule_list_at(l.get(), 0));
      },
      py::arg("client"), py::arg("queue"), py::arg("name"), "One schedule as a dict.");
  m.def(
      "schedule_next",
      [](Client &self, const std::string &queue, const std::string &name, size_t n) {
        const char *q = cstr(queue, "queue name");
        const char *s = cstr(name, "schedule name");
        std::vector<int64_t> t(n);
        size_t got = 0;
        {
          py::gil_scoped_release nogil;
          self.call([&](echomq_client *c) { return echomq_schedule_next(c, q, s, n, t.data(), &got); });
        }
        t.resize(got);
        return t;
      },
      py::arg("client"), py::arg("queue"), py::arg("name"), py::arg("n"), "The next n ticks (server ms).");
  m.def(
      "job_tick",
      [](Client &self, const std::string &queue, uint64_t id) {
        const char *q = cstr(queue, "queue name");
        JobPtr j;
        {
          py::gil_scoped_release nogil;
          echomq_job *raw = nullptr;
          self.call([&](echomq_client *c) { return echomq_get_job(c, q, id, &raw); });
          j.reset(raw);
        }
        // A schedule's name holds no NUL (echomq_check_name).
        return py::make_tuple(text(echomq_job_schedule(j.get(), nullptr)), echomq_job_tick_ms(j.get()));
      },
      py::arg("client"), py::arg("queue"), py::arg("id"), "(schedule, tick ms) of a job; ('', 0) for none.");
}

}  // namespace emqpy
