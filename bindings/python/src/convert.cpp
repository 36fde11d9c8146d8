// convert.cpp: C values to Python values (see bind.hpp).
#include <cstring>

#include "bind.hpp"

namespace emqpy {

py::str text(const char *s) {
  if (s == nullptr) return py::str("");
  PyObject *o = PyUnicode_DecodeUTF8(s, static_cast<Py_ssize_t>(std::strlen(s)), "replace");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

Bytes bytes_view(const py::handle &b, const char *what) {
  char *data = nullptr;
  Py_ssize_t size = 0;
  if (!PyBytes_Check(b.ptr())) throw py::type_error(std::string(what) + " must be bytes");
  if (PyBytes_AsStringAndSize(b.ptr(), &data, &size) != 0) throw py::error_already_set();
  return Bytes{data, static_cast<size_t>(size)};
}

namespace {

// Server ms as seconds since the epoch; 0 means "none".
py::object seconds(int64_t ms) { return ms ? py::object(py::float_(ms / 1000.0)) : py::object(py::none()); }

py::bytes bytes_of(const char *(*get)(const echomq_job *, size_t *), const echomq_job *j) {
  size_t n = 0;
  const char *p = get(j, &n);
  return py::bytes(p != nullptr ? p : "", n);
}

const char *state_name(int state) {
  switch (state) {
    case ECHOMQ_JOB_PENDING: return "pending";
    case ECHOMQ_JOB_DELAYED: return "delayed";
    case ECHOMQ_JOB_DEAD: return "dead";
    case ECHOMQ_JOB_COMPLETED: return "completed";
    case ECHOMQ_JOB_WAITING: return "waiting";
    default: return "leased";  // claims are leased
  }
}

using J = const echomq_job *;

// The fields of a job, in the order of its tuple: the one list. Python's Job
// has an attribute of each name (echomq/job.py checks it at import).
struct JobField {
  const char *name;
  py::object (*get)(J);
};
const JobField kJobFields[] = {
    {"id", [](J j) -> py::object { return py::int_(echomq_job_id(j)); }},
    {"group", [](J j) -> py::object { return text(echomq_job_group(j)); }},
    {"payload", [](J j) -> py::object { return bytes_of(echomq_job_payload, j); }},
    {"token", [](J j) -> py::object { return py::int_(echomq_job_token(j)); }},
    {"attempt", [](J j) -> py::object { return py::int_(echomq_job_attempt(j)); }},
    {"max_attempts", [](J j) -> py::object { return py::int_(echomq_job_max_attempts(j)); }},
    {"state", [](J j) -> py::object { return py::str(state_name(echomq_job_state_of(j))); }},
    {"lease_until", [](J j) { return seconds(echomq_job_lease_until_ms(j)); }},
    {"enqueued_at", [](J j) -> py::object { return py::float_(echomq_job_enqueued_at_ms(j) / 1000.0); }},
    {"due_at", [](J j) { return seconds(echomq_job_due_at_ms(j)); }},
    {"dead_at", [](J j) { return seconds(echomq_job_dead_at_ms(j)); }},
    {"started_at", [](J j) { return seconds(echomq_job_started_at_ms(j)); }},
    {"finished_at", [](J j) { return seconds(echomq_job_finished_at_ms(j)); }},
    {"last_error", [](J j) -> py::object { return text(echomq_job_last_error(j)); }},
    {"progress", [](J j) -> py::object { return bytes_of(echomq_job_progress, j); }},
    {"result", [](J j) -> py::object { return bytes_of(echomq_job_result, j); }},
    {"result_dropped", [](J j) -> py::object { return text(echomq_job_result_dropped(j)); }},
    {"name", [](J j) -> py::object { return text(echomq_job_name(j)); }},
    {"headers",
     [](J j) -> py::object {
       py::dict d;
       for (size_t i = 0, n = echomq_job_header_count(j); i < n; ++i)
         d[text(echomq_job_header_key(j, i))] = text(echomq_job_header_value(j, i));
       return d;
     }},
};
constexpr size_t kNJobFields = sizeof kJobFields / sizeof kJobFields[0];

}  // namespace

py::tuple job_tuple(const echomq_job *j) {
  py::tuple t(kNJobFields);
  for (size_t i = 0; i < kNJobFields; ++i) t[i] = kJobFields[i].get(j);
  return t;
}

py::tuple job_field_names() {
  py::tuple t(kNJobFields);
  for (size_t i = 0; i < kNJobFields; ++i) t[i] = py::str(kJobFields[i].name);
  return t;
}

py::dict job_state_names() {
  py::dict d;
  for (int s : {ECHOMQ_JOB_PENDING, ECHOMQ_JOB_LEASED, ECHOMQ_JOB_DELAYED, ECHOMQ_JOB_DEAD, ECHOMQ_JOB_COMPLETED,
                ECHOMQ_JOB_WAITING})
    d[py::int_(s)] = py::str(state_name(s));
  return d;
}

py::list job_list(const echomq_job_list *l) {
  py::list out;
  if (l == nullptr) return out;
  size_t n = echomq_job_list_count(l);
  for (size_t i = 0; i < n; ++i) out.append(job_tuple(echomq_job_list_at(l, i)));
  return out;
}

py::list report_lines(const echomq_report *r) {
  py::list lines;
  const size_t n = echomq_report_count(r);
  for (size_t i = 0; i < n; ++i) lines.append(text(echomq_report_at(r, i)));
  return lines;
}

py::object Out<echomq_lane_list *>::value() {
  auto list = take();
  py::list page;
  py::object next = py::none();
  if (list) {
    size_t n = echomq_lane_list_count(list.get());
    for (size_t i = 0; i < n; ++i) page.append(lane_dict(*echomq_lane_list_at(list.get(), i)));
    const char *nx = echomq_lane_list_next(list.get());
    if (nx != nullptr) next = text(nx);
  }
  return py::make_tuple(page, next);
}

py::dict lane_dict(const echomq_lane_info &li) {
  py::dict d;
  d["group"] = text(li.group);
  d["depth"] = li.depth;
  d["active"] = li.active;
  d["limit"] = li.limit;
  d["weight"] = li.weight;
  d["limit_is_default"] = li.limit_is_default != 0;
  d["weight_is_default"] = li.weight_is_default != 0;
  d["paused"] = li.paused != 0;
  d["serviceable"] = li.serviceable != 0;
  d["served"] = li.served;
  d["oldest_enqueued_at_ms"] = li.oldest_enqueued_at_ms;
  d["known"] = li.known != 0;
  d["delayed"] = li.delayed;
  d["rate_jobs"] = li.rate_jobs;
  d["rate_period_ms"] = li.rate_period_ms;
  d["rate_burst"] = li.rate_burst;
  d["rate_is_default"] = li.rate_is_default != 0;
  d["tokens"] = li.tokens;
  d["next_token_at_ms"] = li.next_token_at_ms;
  d["cap"] = li.cap;
  d["cap_is_default"] = li.cap_is_default != 0;
  d["tenant"] = text(li.tenant);
  d["is_tenant"] = li.is_tenant != 0;
  d["wait_samples"] = li.wait_samples;
  d["wait_p50_ms"] = li.wait_p50_ms;
  d["wait_p99_ms"] = li.wait_p99_ms;
  d["window_claims"] = li.window_claims;
  d["window_share"] = li.share;
  d["fair_share"] = li.fair_share;
  d["cost_v"] = li.cost_v;
  d["sits_out"] = li.sits_out != 0;
  d["burst"] = li.burst;
  d["bursting"] = li.bursting != 0;
  return d;
}

py::dict stats_dict(const echomq_queue_stats &s) {
  py::dict d;
  d["lanes"] = s.lanes;
  d["ring"] = s.ring;
  d["pending"] = s.pending;
  d["leased"] = s.leased;
  d["delayed"] = s.delayed;
  d["dead"] = s.dead;
  d["paused"] = s.paused;
  d["enqueued_total"] = s.enqueued_total;
  d["claimed_total"] = s.claimed_total;
  d["acked_total"] = s.acked_total;
  d["failed_total"] = s.failed_total;
  d["dead_total"] = s.dead_total;
  d["default_weight"] = s.default_weight;
  d["default_limit"] = s.default_limit;
  d["default_max_attempts"] = s.default_max_attempts;
  d["server_time_ms"] = s.server_time_ms;
  d["tenants"] = s.tenants;
  d["canceled_total"] = s.canceled_total;
  d["expired_total"] = s.expired_total;
  d["bursting"] = s.bursting;
  return d;
}

}  // namespace emqpy
