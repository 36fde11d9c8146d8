// module.cpp: the private compiled module echomq._echomq.
//
// A thin layer over the C API of libechomq. Names, numbers and payloads are
// checked and converted by the pure-Python package (echomq/); this module
// copies its arguments out of Python objects, releases the GIL around every
// call that may touch the network, and hands results back as plain tuples
// and dicts. Failed calls raise the classes of echomq.errors.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "handle.hpp"
#include "schedules.hpp"

namespace py = pybind11;
using emqpy::Client;
using emqpy::cstr;
using emqpy::Error;

namespace {

// A job handed out by a worker engine, kept until it is reported.
struct WorkerJob {
  emqpy::JobPtr job;
};

// An echomq_worker handle. Its calls are thread-safe in C, so no lock here;
// the Python object lives while any thread is inside one of its methods.
struct Worker {
  Worker(const std::string &url, const std::string &queue, unsigned int slots, unsigned int prefetch,
         int64_t lease_ms, bool weighted, int64_t retry_delay_ms, int64_t idle_wait_ms,
         int connect_timeout_ms, int command_timeout_ms, int wait_replicas, int wait_aof,
         int wait_timeout_ms, int target_wait_ms) {
    echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
    o.target_wait_ms = target_wait_ms;
    o.wait_replicas = wait_replicas;
    o.wait_aof = wait_aof;
    o.wait_timeout_ms = wait_timeout_ms;
    o.slots = slots;
    o.prefetch = prefetch;
    o.lease_ms = lease_ms;
    o.weighted = weighted ? 1 : 0;
    o.retry_delay_ms = retry_delay_ms;
    o.idle_wait_ms = idle_wait_ms;
    o.connect_timeout_ms = connect_timeout_ms;
    o.command_timeout_ms = command_timeout_ms;
    echomq_worker *h = nullptr;
    int rc = echomq_worker_new(&h, emqpy::cstr(url, "url"), emqpy::cstr(queue, "queue name"), &o);
    if (rc != ECHOMQ_OK) emqpy::throw_status(rc, "cannot create the worker (bad URL, queue name or option)");
    w.reset(h);
  }
  // Turns a failed status into an Error with the engine's message.
  void check(int rc) {
    if (rc >= 0) return;
    char buf[1024];
    echomq_worker_last_error(w.get(), buf, sizeof buf);
    std::string msg = echomq_strerror(rc);
    if (rc == ECHOMQ_ECONN || rc == ECHOMQ_ETIMEOUT || rc == ECHOMQ_ENOPERM || rc == ECHOMQ_ESERVER) {
      if (buf[0] != '\0') msg = buf;
    }
    emqpy::throw_status(rc, msg.c_str());
  }
  emqpy::WorkerPtr w;
};

}  // namespace

namespace {

// Text from the library is UTF-8; a fail reason may have been cut inside a
// character, so decode leniently rather than fail on the way out.
py::str text(const char *s) {
  if (s == nullptr) return py::str("");
  PyObject *o = PyUnicode_DecodeUTF8(s, static_cast<Py_ssize_t>(std::strlen(s)), "replace");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

// Bytes from an accessor returning (pointer, length).
py::bytes bytes_of(const char *(*get)(const echomq_job *, size_t *), const echomq_job *j) {
  size_t n = 0;
  const char *p = get(j, &n);
  return py::bytes(p != nullptr ? p : "", n);
}

// A job as a tuple, in the order echomq.job.Job._from_raw reads it.
py::tuple job_tuple(const echomq_job *j) {
  size_t len = 0;
  const char *payload = echomq_job_payload(j, &len);
  return py::make_tuple(echomq_job_id(j), text(echomq_job_group(j)),
                        py::bytes(payload != nullptr ? payload : "", len), echomq_job_token(j),
                        echomq_job_max_attempts(j), echomq_job_lease_until_ms(j),
                        echomq_job_enqueued_at_ms(j), echomq_job_dead_at_ms(j),
                        text(echomq_job_last_error(j)), echomq_job_attempt(j),
                        echomq_job_state_of(j), echomq_job_due_at_ms(j), echomq_job_started_at_ms(j),
                        echomq_job_finished_at_ms(j), bytes_of(echomq_job_progress, j),
                        bytes_of(echomq_job_result, j));
}

py::object job_or_none(const emqpy::JobPtr &j) {
  if (!j) return py::none();
  return job_tuple(j.get());
}

py::list job_list(const echomq_job_list *l) {
  py::list out;
  if (l == nullptr) return out;
  size_t n = echomq_job_list_count(l);
  for (size_t i = 0; i < n; ++i) out.append(job_tuple(echomq_job_list_at(l, i)));
  return out;
}

// The lines of a report (NULL: none).
py::list report_lines(const echomq_report *r) {
  py::list lines;
  const size_t n = echomq_report_count(r);
  for (size_t i = 0; i < n; ++i) lines.append(text(echomq_report_at(r, i)));
  return lines;
}

// Runs fill(handle, &report) without the GIL; the report it made is owned
// by the result (also when the call fails part-way, it made none).
template <class F>
emqpy::ReportPtr fetch_report(Client &self, F &&fill) {
  emqpy::ReportPtr report;
  py::gil_scoped_release nogil;
  echomq_report *r = nullptr;
  self.call([&](echomq_client *c) { return fill(c, &r); });
  report.reset(r);
  return report;
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
  return d;
}

// A view of a bytes object's buffer. The caller keeps the object alive, and
// bytes are immutable, so the view stays valid while the GIL is released.
struct Bytes {
  const char *data;
  size_t size;
};
Bytes bytes_view(const py::handle &b, const char *what) {
  char *data = nullptr;
  Py_ssize_t size = 0;
  if (!PyBytes_Check(b.ptr())) throw py::type_error(std::string(what) + " must be bytes");
  if (PyBytes_AsStringAndSize(b.ptr(), &data, &size) != 0) throw py::error_already_set();
  return Bytes{data, static_cast<size_t>(size)};
}

echomq_enqueue_options enqueue_opts(int64_t delay_ms, uint32_t max_attempts, int64_t keep_ms = 0,
                                    uint64_t keep_last = 0, uint64_t cost_estimate = 0, int64_t at_ms = 0) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.at_ms = at_ms;
  o.delay_ms = delay_ms;
  o.max_attempts = max_attempts;
  o.keep_ms = keep_ms;
  o.keep_last = keep_last;
  o.cost_estimate = cost_estimate;
  return o;
}

// Raises the echomq.errors class for a status, with the handle's message.
void raise_error(const Error &e) {
  py::object errors = py::module_::import("echomq.errors");
  py::object exc = errors.attr("_from_status")(e.code, text(e.message.c_str()));
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc.ptr())), exc.ptr());
}

}  // namespace

PYBIND11_MODULE(_echomq, m) {
  m.doc() = "Private compiled core of the echomq package; use the echomq package instead.";

  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error &e) {
      raise_error(e);
    }
  });

  m.def("version", &echomq_version, "Run-time libechomq version number (major*10000+minor*100+patch).");
  m.def("version_string", []() { return std::string(echomq_version_string()); },
        "Run-time libechomq version as 'major.minor.patch'.");
  m.def("strerror", [](int code) { return std::string(echomq_strerror(code)); },
        "Static English text for a status code.");
  m.def("check_queue_name", [](const std::string &q) {
          return q.find('\0') != std::string::npos ? int(ECHOMQ_EINVAL) : echomq_check_queue_name(q.c_str());
        }, "Status of a queue-name check (0 = valid, no I/O).");
  m.def("check_group_name", [](const std::string &g) {
          return g.find('\0') != std::string::npos ? int(ECHOMQ_EINVAL) : echomq_check_group_name(g.c_str());
        }, "Status of a group-name check (0 = valid, no I/O).");
  m.def("check_name", [](int kind, const std::string &name) {
          char why[512];
          return echomq_check_name(kind, name.data(), name.size(), why, sizeof why) == ECHOMQ_OK ? std::string()
                                                                                             : std::string(why);
        }, "Why a name is refused (\"\" when it is good; no I/O): the core's message.");
  m.attr("NAME_QUEUE") = int(ECHOMQ_NAME_QUEUE);
  m.attr("NAME_GROUP") = int(ECHOMQ_NAME_GROUP);
  m.attr("NAME_LANE") = int(ECHOMQ_NAME_LANE);

  m.attr("HEADER_VERSION") = ECHOMQ_VERSION_NUMBER;
  m.attr("QUEUE_NAME_MAX") = ECHOMQ_QUEUE_NAME_MAX;
  m.attr("GROUP_NAME_MAX") = ECHOMQ_GROUP_NAME_MAX;
  m.attr("DEFAULT_MAX_PAYLOAD") = ECHOMQ_DEFAULT_MAX_PAYLOAD;
  m.attr("HARD_MAX_PAYLOAD") = ECHOMQ_HARD_MAX_PAYLOAD;
  m.attr("BATCH_MAX") = ECHOMQ_BATCH_MAX;
  m.attr("LEASE_MAX_MS") = ECHOMQ_LEASE_MAX_MS;
  m.attr("DELAY_MAX_MS") = ECHOMQ_DELAY_MAX_MS;
  m.attr("ATTEMPTS_MAX") = ECHOMQ_ATTEMPTS_MAX;
  m.attr("WEIGHT_MAX") = ECHOMQ_WEIGHT_MAX;
  m.attr("RATE_JOBS_MAX") = ECHOMQ_RATE_JOBS_MAX;
  m.attr("RATE_PERIOD_MAX_MS") = ECHOMQ_RATE_PERIOD_MAX_MS;
  m.attr("CAP_MAX") = ECHOMQ_CAP_MAX;
  m.attr("LIMIT_MAX") = ECHOMQ_LIMIT_MAX;
  m.attr("ID_MAX") = ECHOMQ_ID_MAX;
  m.attr("WCLAIM_MAX") = ECHOMQ_WCLAIM_MAX;
  m.attr("REASON_MAX") = ECHOMQ_REASON_MAX;
  m.attr("RETRY_BACKOFF") = ECHOMQ_RETRY_BACKOFF;
  m.attr("FAIL_RETRY") = int(ECHOMQ_FAIL_RETRY);
  m.attr("FAIL_DELAYED") = int(ECHOMQ_FAIL_DELAYED);
  m.attr("FAIL_DEAD") = int(ECHOMQ_FAIL_DEAD);
  m.attr("RETRY_DEFAULT") = ECHOMQ_RETRY_DEFAULT;
  m.attr("STOP_DRAIN") = ECHOMQ_STOP_DRAIN;
  m.attr("STOP_ABANDON") = ECHOMQ_STOP_ABANDON;
  m.attr("KEY_LAYOUT") = ECHOMQ_KEY_LAYOUT;
  m.attr("DEDUP_KEY_MAX") = ECHOMQ_DEDUP_KEY_MAX;
  m.attr("DEDUP_WINDOW_DEFAULT_MS") = ECHOMQ_DEDUP_WINDOW_DEFAULT_MS;
  m.attr("DEDUP_WINDOW_MAX_MS") = ECHOMQ_DEDUP_WINDOW_MAX_MS;
  m.attr("DEDUP_KEYS_MAX") = ECHOMQ_DEDUP_KEYS_MAX;
  m.attr("PURGE_MAX") = ECHOMQ_PURGE_MAX;
  m.attr("SHARDS_MAX") = ECHOMQ_SHARDS_MAX;
  m.attr("RESULT_MAX") = ECHOMQ_RESULT_MAX;
  m.attr("PROGRESS_MAX") = ECHOMQ_PROGRESS_MAX;
  m.attr("KEEP_MAX_MS") = ECHOMQ_KEEP_MAX_MS;
  m.attr("KEEP_LAST_MAX") = ECHOMQ_KEEP_LAST_MAX;
  m.attr("EVENTS_MAXLEN_MAX") = ECHOMQ_EVENTS_MAXLEN_MAX;
  m.attr("WAIT_WINDOW_MAX_S") = ECHOMQ_WAIT_WINDOW_MAX_S;
  m.attr("WAIT_GRACE_MS") = ECHOMQ_WAIT_GRACE_MS;
  {
    echomq_worker_options d = ECHOMQ_WORKER_OPTIONS_INIT;
    py::dict defaults;
    defaults["slots"] = d.slots;
    defaults["prefetch"] = d.prefetch;
    defaults["lease_ms"] = d.lease_ms;
    defaults["weighted"] = d.weighted != 0;
    defaults["retry_delay_ms"] = d.retry_delay_ms;
    defaults["idle_wait_ms"] = d.idle_wait_ms;
    defaults["connect_timeout_ms"] = d.connect_timeout_ms;
    defaults["command_timeout_ms"] = d.command_timeout_ms;
    defaults["target_wait_ms"] = d.target_wait_ms;
    m.attr("WORKER_DEFAULTS") = defaults;
  }

  // The job handles the engine hands out: kept whole so that done / fail /
  // discard report exactly the delivery that was handed out.
  py::class_<WorkerJob>(m, "WorkerJob", "A job handed out by a Worker engine (opaque).")
      .def_property_readonly("id", [](const WorkerJob &j) { return echomq_job_id(j.job.get()); })
      .def_property_readonly("token", [](const WorkerJob &j) { return echomq_job_token(j.job.get()); });

  py::class_<Worker>(m, "Worker", "The worker engine of libechomq (an echomq_worker handle).")
      // No I/O: the factory keeps the GIL.
      .def(py::init<const std::string &, const std::string &, unsigned int, unsigned int, int64_t, bool,
                    int64_t, int64_t, int, int, int, int, int, int>(),
           py::arg("url"), py::arg("queue"), py::arg("slots"), py::arg("prefetch"), py::arg("lease_ms"),
           py::arg("weighted"), py::arg("retry_delay_ms"), py::arg("idle_wait_ms"),
           py::arg("connect_timeout_ms"), py::arg("command_timeout_ms"), py::arg("wait_replicas") = 0,
           py::arg("wait_aof") = 0, py::arg("wait_timeout_ms") = 1000,
           py::arg("target_wait_ms") = echomq_worker_options ECHOMQ_WORKER_OPTIONS_INIT.target_wait_ms)
      .def("start",
           [](Worker &self) {
             py::gil_scoped_release nogil;
             self.check(echomq_worker_start(self.w.get()));
           },
           "Connect and start the engine.")
      .def("next",
           [](Worker &self, int64_t timeout_ms) -> py::object {
             echomq_job *j = nullptr;
             int rc;
             {
               py::gil_scoped_release nogil;
               rc = echomq_worker_next(self.w.get(), timeout_ms, &j);
             }
             emqpy::JobPtr job(j);
             if (rc == ECHOMQ_EMPTY) return py::none();
             if (rc == ECHOMQ_ECANCELED) return py::str("stopped");
             self.check(rc);
             py::tuple t = job_tuple(job.get());
             return py::make_tuple(t, WorkerJob{std::move(job)});
           },
           py::arg("timeout_ms"),
           "(job tuple, handle), None at the timeout, or 'stopped' once the engine stops.")
      .def("done",
           [](Worker &self, const WorkerJob &j, uint64_t cost, const py::object &result) {
             echomq_job_report r = ECHOMQ_JOB_REPORT_INIT;
             r.cost = cost;
             if (!result.is_none()) {  // `result` keeps the bytes alive while the GIL is released
               Bytes b = bytes_view(result, "result");
               r.result = b.data;
               r.result_len = b.size;
             }
             py::gil_scoped_release nogil;
             return echomq_worker_done_with(self.w.get(), j.job.get(), &r);
           },
           py::arg("job"), py::arg("cost") = 0, py::arg("result") = py::none(),
           "Report success, with the job's result (bytes, or None) and its cost (units charged in cost "
           "mode, 0 = the measured time) in the one settlement; returns the status (0, ENOTFOUND, "
           "ECANCELED; ETOOLARGE for a result over RESULT_MAX).")
      .def("fail",
           [](Worker &self, const WorkerJob &j, const std::string &reason, int64_t retry_delay_ms, uint64_t cost) {
             const char *r = reason.c_str();
             echomq_job_report rep = ECHOMQ_JOB_REPORT_INIT;
             rep.cost = cost;
             py::gil_scoped_release nogil;
             return echomq_worker_fail_with(self.w.get(), j.job.get(), r, retry_delay_ms, &rep);
           },
           py::arg("job"), py::arg("reason"), py::arg("retry_delay_ms"), py::arg("cost") = 0,
           "Report a failure; returns the status (0, ENOTFOUND or ECANCELED).")
      .def("discard",
           [](Worker &self, const WorkerJob &j, const std::string &reason) {
             const char *r = reason.c_str();
             py::gil_scoped_release nogil;
             return echomq_worker_discard(self.w.get(), j.job.get(), r);
           },
           py::arg("job"), py::arg("reason"), "Dead-letter now; returns the status.")
      .def("stop",
           [](Worker &self, int mode, int64_t timeout_ms) {
             int rc;
             {
               py::gil_scoped_release nogil;
               rc = echomq_worker_stop(self.w.get(), mode, timeout_ms);
             }
             if (rc != ECHOMQ_OK && rc != ECHOMQ_ETIMEOUT) self.check(rc);
             return rc == ECHOMQ_OK;
           },
           py::arg("mode"), py::arg("timeout_ms"), "Stop; True unless a drain left jobs running.")
      .def("stats",
           [](Worker &self) {
             echomq_worker_stats s{};
             s.version = ECHOMQ_WORKER_STATS_VERSION;
             {
               py::gil_scoped_release nogil;
               self.check(echomq_worker_stats_get(self.w.get(), &s));
             }
             py::dict d;
             d["claimed"] = s.claimed;
             d["done"] = s.done;
             d["failed"] = s.failed;
             d["released"] = s.released;
             d["extended"] = s.extended;
             d["lost"] = s.lost;
             d["round_trips"] = s.round_trips;
             d["errors"] = s.errors;
             d["running"] = s.running;
             d["buffered"] = s.buffered;
             d["retried"] = s.retried;
             d["delayed"] = s.delayed;
             d["dead"] = s.dead;
             d["unconfirmed"] = s.unconfirmed;
             return d;
           },
           "The engine's counters as a dict.")
      .def("last_error",
           [](Worker &self) {
             char buf[1024];
             int code;
             {
               py::gil_scoped_release nogil;
               code = echomq_worker_last_error(self.w.get(), buf, sizeof buf);
             }
             return py::make_tuple(code, text(buf));
           },
           "(status, message) of the engine's last failed server call ((0, '') if none).");

  py::class_<Client>(m, "Client", "One connection to one Valkey server (an echomq_client handle).")
      // Creating the handle does no I/O, so the factory keeps the GIL.
      .def(py::init<int, int, size_t, int, int, int>(), py::arg("connect_timeout_ms"),
           py::arg("command_timeout_ms"), py::arg("max_payload_bytes"), py::arg("wait_replicas") = 0,
           py::arg("wait_aof") = 0, py::arg("wait_timeout_ms") = 1000)
      .def_static("take_unconfirmed", &emqpy::take_unconfirmed,
                  "Why the last call of this thread wrote but was not confirmed durable in time "
                  "('' if it was, or did not wait); clears it. No I/O.")
      .def("connect",
           [](Client &self, const std::string &url) {
             const char *u = cstr(url, "url");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_client_connect(c, u); });
           },
           py::arg("url"), "Connect (or reconnect) to a server URL.")
      .def("ping",
           [](Client &self) {
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_client_ping(c); });
           },
           "Send PING.")
      .def("cancel", &Client::cancel, "Interrupt a call in progress on this client from another thread.")
      .def("close",
           [](Client &self) {
             py::gil_scoped_release nogil;
             self.close();
           },
           "Close the connection and free the handle.")
      .def_property_readonly("closed", &Client::closed, "True once close() has run.")
      .def_property_readonly(
          "connected",
          [](Client &self) {
            py::gil_scoped_release nogil;
            return self.connected();
          },
          "True if the handle holds a live connection (no I/O).")

      // Enqueue
      .def("enqueue",
           [](Client &self, const std::string &queue, const std::string &group, const py::bytes &payload,
              int64_t delay_ms, uint32_t max_attempts, int64_t keep_ms, uint64_t keep_last, uint64_t cost_estimate,
              int64_t at_ms) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             Bytes p = bytes_view(payload, "payload");
             echomq_enqueue_options o = enqueue_opts(delay_ms, max_attempts, keep_ms, keep_last, cost_estimate, at_ms);
             uint64_t id = 0;
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) { return echomq_enqueue(c, q, g, p.data, p.size, &o, &id); });
             }
             return id;
           },
           py::arg("queue"), py::arg("group"), py::arg("payload"), py::arg("delay_ms"),
           py::arg("max_attempts"), py::arg("keep_ms") = 0, py::arg("keep_last") = 0, py::arg("cost_estimate") = 0,
           py::arg("at_ms") = 0, "Enqueue one job; returns its id.")
      .def("enqueue_batch",
           [](Client &self, const std::string &queue, const py::list &groups, const py::list &payloads,
              int64_t delay_ms, uint32_t max_attempts, int64_t keep_ms, uint64_t keep_last, uint64_t cost_estimate,
              int64_t at_ms) {
             const char *q = cstr(queue, "queue name");
             if (groups.size() != payloads.size()) throw py::value_error("groups and payloads differ in length");
             emqpy::BatchPtr batch(echomq_batch_create());
             if (!batch) throw Error{ECHOMQ_ENOMEM, "cannot allocate a batch"};
             // Adding copies and validates each job; no I/O, so the GIL stays.
             for (size_t i = 0; i < groups.size(); ++i) {
               std::string g = py::cast<std::string>(groups[i]);
               Bytes p = bytes_view(payloads[i], "payload");
               int rc = echomq_batch_add(batch.get(), cstr(g, "group name"), p.data, p.size);
               if (rc != ECHOMQ_OK) {
                 emqpy::throw_status(rc, (std::string("batch entry ") + std::to_string(i) + ": " +
                                          echomq_strerror(rc) + " (group " + g + ")").c_str());
               }
             }
             echomq_enqueue_options o = enqueue_opts(delay_ms, max_attempts, keep_ms, keep_last, cost_estimate, at_ms);
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) { return echomq_enqueue_batch(c, q, batch.get(), &o); });
             }
             size_t n = echomq_batch_count(batch.get());
             py::list ids(n);
             for (size_t i = 0; i < n; ++i) ids[i] = py::int_(echomq_batch_id(batch.get(), i));
             return ids;
           },
           py::arg("queue"), py::arg("groups"), py::arg("payloads"), py::arg("delay_ms"),
           py::arg("max_attempts"), py::arg("keep_ms") = 0, py::arg("keep_last") = 0, py::arg("cost_estimate") = 0,
           py::arg("at_ms") = 0, "Enqueue many jobs in one round trip; returns their ids.")

      .def("enqueue_keyed",
           [](Client &self, const std::string &queue, const std::string &group, const py::bytes &payload,
              int64_t delay_ms, uint32_t max_attempts, const std::string &key, int64_t window_ms,
              int64_t keep_ms, uint64_t keep_last, uint64_t cost_estimate, int64_t at_ms) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             Bytes p = bytes_view(payload, "payload");
             echomq_enqueue_options o = enqueue_opts(delay_ms, max_attempts, keep_ms, keep_last, cost_estimate, at_ms);
             o.idempotency_key = cstr(key, "idempotency key");
             o.dedup_window_ms = window_ms;
             uint64_t id = 0;
             int rc = 0;
             {
               py::gil_scoped_release nogil;
               rc = self.call([&](echomq_client *c) { return echomq_enqueue(c, q, g, p.data, p.size, &o, &id); });
             }
             return py::make_tuple(id, rc == ECHOMQ_DUPLICATE);
           },
           py::arg("queue"), py::arg("group"), py::arg("payload"), py::arg("delay_ms"),
           py::arg("max_attempts"), py::arg("key"), py::arg("window_ms"), py::arg("keep_ms") = 0,
           py::arg("keep_last") = 0, py::arg("cost_estimate") = 0, py::arg("at_ms") = 0,
           "Enqueue one job with an idempotency key: (id, was a duplicate).")
      .def("enqueue_batch_keyed",
           [](Client &self, const std::string &queue, const py::list &groups, const py::list &payloads,
              const py::list &keys, int64_t delay_ms, uint32_t max_attempts, int64_t window_ms,
              int64_t keep_ms, uint64_t keep_last, uint64_t cost_estimate, int64_t at_ms) {
             const char *q = cstr(queue, "queue name");
             if (groups.size() != payloads.size() || groups.size() != keys.size())
               throw py::value_error("groups, payloads and keys differ in length");
             emqpy::BatchPtr batch(echomq_batch_create());
             if (!batch) throw Error{ECHOMQ_ENOMEM, "cannot allocate a batch"};
             for (size_t i = 0; i < groups.size(); ++i) {
               std::string g = py::cast<std::string>(groups[i]);
               std::string k = py::cast<std::string>(keys[i]);
               Bytes p = bytes_view(payloads[i], "payload");
               int rc = echomq_batch_add_keyed(batch.get(), cstr(g, "group name"), p.data, p.size,
                                               cstr(k, "idempotency key"));
               if (rc != ECHOMQ_OK) {
                 emqpy::throw_status(rc, (std::string("batch entry ") + std::to_string(i) + ": " +
                                          echomq_strerror(rc) + " (group " + g + ")").c_str());
               }
             }
             echomq_enqueue_options o = enqueue_opts(delay_ms, max_attempts, keep_ms, keep_last, cost_estimate, at_ms);
             o.dedup_window_ms = window_ms;
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) { return echomq_enqueue_batch(c, q, batch.get(), &o); });
             }
             size_t n = echomq_batch_count(batch.get());
             py::list out(n);
             for (size_t i = 0; i < n; ++i)
               out[i] = py::make_tuple(echomq_batch_id(batch.get(), i), echomq_batch_duplicate(batch.get(), i) != 0);
             return out;
           },
           py::arg("queue"), py::arg("groups"), py::arg("payloads"), py::arg("keys"), py::arg("delay_ms"),
           py::arg("max_attempts"), py::arg("window_ms"), py::arg("keep_ms") = 0, py::arg("keep_last") = 0, py::arg("cost_estimate") = 0,
           py::arg("at_ms") = 0, "Enqueue many jobs with idempotency keys (\"\" = none): [(id, was a duplicate)].")

      // Everyday operations
      .def("get_job",
           [](Client &self, const std::string &queue, uint64_t id) {
             const char *q = cstr(queue, "queue name");
             emqpy::JobPtr job;
             {
               py::gil_scoped_release nogil;
               echomq_job *j = nullptr;
               self.call([&](echomq_client *c) { return echomq_get_job(c, q, id, &j); });
               job.reset(j);
             }
             return job_or_none(job);
           },
           py::arg("queue"), py::arg("id"), "A job by id as a tuple (NotFoundError if none).")
      .def("delete_job",
           [](Client &self, const std::string &queue, uint64_t id) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_delete_job(c, q, id); });
           },
           py::arg("queue"), py::arg("id"), "Delete a pending, delayed or dead job.")
      .def("purge_lane",
           [](Client &self, const std::string &queue, const std::string &group, uint32_t max,
              bool clear_settings, uint64_t cursor) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             uint64_t removed = 0;
             int more = 0;
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) {
                 return echomq_purge_lane(c, q, g, max, clear_settings ? 1 : 0, &cursor, &removed, &more);
               });
             }
             return py::make_tuple(removed, more != 0, cursor);
           },
           py::arg("queue"), py::arg("group"), py::arg("max"), py::arg("clear_settings"), py::arg("cursor"),
           "One bounded purge step: (removed, more, next cursor).")
      .def("release",
           [](Client &self, const std::string &queue, uint64_t id, uint64_t token) {
             const char *q = cstr(queue, "queue name");
             echomq_settle *s = echomq_settle_create();
             if (s == nullptr) throw Error{ECHOMQ_ENOMEM, "cannot allocate a settlement"};
             int st = ECHOMQ_EINVAL;
             try {
               int rc = echomq_settle_fail(s, id, token, nullptr, ECHOMQ_RETRY_RELEASE);
               if (rc != ECHOMQ_OK) emqpy::throw_status(rc, "release: bad job id or token");
               {
                 py::gil_scoped_release nogil;
                 self.call([&](echomq_client *c) { return echomq_settle_claim(c, q, s, 1000, 0, 0, nullptr); });
               }
               st = echomq_settle_status(s, 0);
             } catch (...) {
               echomq_settle_free(s);
               throw;
             }
             echomq_settle_free(s);
             return st;
           },
           py::arg("queue"), py::arg("id"), py::arg("token"),
           "Give a leased job back to its lane unstarted (the attempt not counted): its status.")
      .def("queues",
           [](Client &self) {
             emqpy::ReportPtr report = fetch_report(self, [&](echomq_client *c, echomq_report **r) {
               return echomq_queues(c, r);
             });
             return report_lines(report.get());
           },
           "The queues of the connected server, in byte order.")
      .def("shards_create",
           [](Client &self, const std::string &queue, uint32_t shards) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_shards_create(c, q, shards); });
           },
           py::arg("queue"), py::arg("shards"),
           "Create a sharded queue over `shards` shard queues, or open it with that count.")
      .def("shards",
           [](Client &self, const std::string &queue) {
             const char *q = cstr(queue, "queue name");
             emqpy::ReportPtr report = fetch_report(self, [&](echomq_client *c, echomq_report **r) {
               return echomq_shards(c, q, r);
             });
             return report_lines(report.get());
           },
           py::arg("queue"), "The shard queues of a queue, in shard order ([] for a plain queue).")

      // Claim
      .def("claim",
           [](Client &self, const std::string &queue, int64_t lease_ms) {
             const char *q = cstr(queue, "queue name");
             emqpy::JobPtr job;
             {
               py::gil_scoped_release nogil;
               echomq_job *j = nullptr;
               self.call([&](echomq_client *c) { return echomq_claim(c, q, lease_ms, &j); });
               job.reset(j);
             }
             return job_or_none(job);
           },
           py::arg("queue"), py::arg("lease_ms"), "Claim one job: a tuple, or None when empty.")
      .def("bclaim",
           [](Client &self, const std::string &queue, int64_t lease_ms, int64_t timeout_ms) {
             const char *q = cstr(queue, "queue name");
             emqpy::JobPtr job;
             {
               py::gil_scoped_release nogil;
               echomq_job *j = nullptr;
               self.call([&](echomq_client *c) { return echomq_bclaim(c, q, lease_ms, timeout_ms, &j); });
               job.reset(j);
             }
             return job_or_none(job);
           },
           py::arg("queue"), py::arg("lease_ms"), py::arg("timeout_ms"),
           "Blocking claim: waits up to timeout_ms on the server; None at the timeout.")
      .def("wclaim",
           [](Client &self, const std::string &queue, int64_t lease_ms, uint32_t max) {
             const char *q = cstr(queue, "queue name");
             emqpy::JobListPtr list;
             {
               py::gil_scoped_release nogil;
               echomq_job_list *l = nullptr;
               self.call([&](echomq_client *c) { return echomq_wclaim(c, q, lease_ms, max, &l); });
               list.reset(l);
             }
             return job_list(list.get());
           },
           py::arg("queue"), py::arg("lease_ms"), py::arg("max"),
           "Weighted claim: up to max jobs from one lane, as a list of tuples.")

      .def("claim_batch",
           [](Client &self, const std::string &queue, int64_t lease_ms, uint32_t n, bool weighted) {
             const char *q = cstr(queue, "queue name");
             emqpy::JobListPtr list;
             {
               py::gil_scoped_release nogil;
               echomq_job_list *l = nullptr;
               self.call([&](echomq_client *c) {
                 return echomq_claim_batch(c, q, lease_ms, n, weighted ? 1 : 0, &l);
               });
               list.reset(l);
             }
             return job_list(list.get());
           },
           py::arg("queue"), py::arg("lease_ms"), py::arg("n"), py::arg("weighted"),
           "Claim up to n jobs (n turns of the ring) in one call, as a list of tuples.")

      // Settle
      .def("ack",
           [](Client &self, const std::string &queue, uint64_t id, uint64_t token) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_ack(c, q, id, token); });
           },
           py::arg("queue"), py::arg("id"), py::arg("token"), "Acknowledge a leased job.")
      .def("ack_many",
           [](Client &self, const std::string &queue, const std::vector<uint64_t> &ids,
              const std::vector<uint64_t> &tokens) {
             const char *q = cstr(queue, "queue name");
             if (ids.size() != tokens.size()) throw py::value_error("ids and tokens differ in length");
             std::vector<int> statuses(ids.size(), ECHOMQ_OK);
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) {
                 return echomq_ack_many(c, q, ids.data(), tokens.data(), ids.size(), statuses.data(), nullptr);
               });
             }
             return statuses;
           },
           py::arg("queue"), py::arg("ids"), py::arg("tokens"),
           "Acknowledge many jobs in one round trip; returns one status per job.")
      .def("ack_claim",
           [](Client &self, const std::string &queue, uint64_t id, uint64_t token, int64_t lease_ms) {
             const char *q = cstr(queue, "queue name");
             emqpy::JobPtr job;
             {
               py::gil_scoped_release nogil;
               echomq_job *j = nullptr;
               self.call([&](echomq_client *c) { return echomq_ack_claim(c, q, id, token, lease_ms, &j); });
               job.reset(j);
             }
             return job_or_none(job);
           },
           py::arg("queue"), py::arg("id"), py::arg("token"), py::arg("lease_ms"),
           "Acknowledge, then claim the next job in the same round trip.")
      .def("fail",
           [](Client &self, const std::string &queue, uint64_t id, uint64_t token, const std::string &reason,
              int64_t retry_delay_ms) {
             const char *q = cstr(queue, "queue name");
             const char *r = reason.c_str();  // an embedded NUL only shortens a reason
             int outcome = 0;
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) { return echomq_fail(c, q, id, token, r, retry_delay_ms, &outcome); });
             }
             return outcome;
           },
           py::arg("queue"), py::arg("id"), py::arg("token"), py::arg("reason"), py::arg("retry_delay_ms"),
           "Fail the current attempt; returns FAIL_RETRY, FAIL_DELAYED or FAIL_DEAD.")
      .def("extend",
           [](Client &self, const std::string &queue, uint64_t id, uint64_t token, int64_t lease_ms) {
             const char *q = cstr(queue, "queue name");
             int64_t until = 0;
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) { return echomq_extend(c, q, id, token, lease_ms, &until); });
             }
             return until;
           },
           py::arg("queue"), py::arg("id"), py::arg("token"), py::arg("lease_ms"),
           "Extend a lease; returns the new deadline (server ms).")

      // Outcomes
      .def("ack_result",
           [](Client &self, const std::string &queue, uint64_t id, uint64_t token, const py::bytes &result) {
             const char *q = cstr(queue, "queue name");
             Bytes r = bytes_view(result, "result");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_ack_result(c, q, id, token, r.data, r.size); });
           },
           py::arg("queue"), py::arg("id"), py::arg("token"), py::arg("result"),
           "Acknowledge a leased job with a result (kept when its outcome is retained).")
      .def("progress",
           [](Client &self, const std::string &queue, uint64_t id, uint64_t token, const py::bytes &value) {
             const char *q = cstr(queue, "queue name");
             Bytes v = bytes_view(value, "progress");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_progress(c, q, id, token, v.data, v.size); });
           },
           py::arg("queue"), py::arg("id"), py::arg("token"), py::arg("value"), "Report a held job's progress.")
      .def("set_retention",
           [](Client &self, const std::string &queue, int64_t keep_ms, uint64_t keep_last) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_retention(c, q, keep_ms, keep_last); });
           },
           py::arg("queue"), py::arg("keep_ms"), py::arg("keep_last"), "Retain completed jobs' outcomes.")
      .def("clear_retention",
           [](Client &self, const std::string &queue) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_clear_retention(c, q); });
           },
           py::arg("queue"), "Stop retaining outcomes.")
      .def("set_events",
           [](Client &self, const std::string &queue, uint64_t max_len, bool enqueued) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) {
               return echomq_set_events(c, q, max_len, enqueued ? ECHOMQ_EVENTS_ENQUEUED : 0);
             });
           },
           py::arg("queue"), py::arg("max_len"), py::arg("enqueued"), "Turn the event stream on.")
      .def("clear_events",
           [](Client &self, const std::string &queue) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_clear_events(c, q); });
           },
           py::arg("queue"), "Turn the event stream off.")
      .def("wait_job",
           [](Client &self, const std::string &queue, uint64_t id, int64_t timeout_ms) {
             const char *q = cstr(queue, "queue name");
             emqpy::JobPtr job;
             {
               py::gil_scoped_release nogil;
               echomq_job *j = nullptr;
               self.call([&](echomq_client *c) { return echomq_wait_job(c, q, id, timeout_ms, &j); });
               job.reset(j);
             }
             return job_or_none(job);
           },
           py::arg("queue"), py::arg("id"), py::arg("timeout_ms"),
           "Wait for a job to complete or die: its tuple, or None when it had not (ECHOMQ_PENDING).")
      .def("events_read",
           [](Client &self, const std::string &queue, const std::string &after, size_t count, int64_t block_ms) {
             const char *q = cstr(queue, "queue name");
             const char *a = cstr(after, "stream id");
             std::unique_ptr<echomq_event_list, void (*)(echomq_event_list *)> list(nullptr, echomq_event_list_free);
             {
               py::gil_scoped_release nogil;
               echomq_event_list *l = nullptr;
               self.call([&](echomq_client *c) { return echomq_events_read(c, q, a, count, block_ms, &l); });
               list.reset(l);
             }
             py::list out;
             for (size_t i = 0; i < echomq_event_list_count(list.get()); ++i) {
               py::dict fields;
               for (size_t k = 0; k < echomq_event_list_nfields(list.get(), i); ++k) {
                 size_t n = 0;
                 const char *v = echomq_event_list_value(list.get(), i, k, &n);
                 fields[text(echomq_event_list_name(list.get(), i, k))] = py::bytes(v, n);
               }
               out.append(py::make_tuple(text(echomq_event_list_id(list.get(), i)), fields));
             }
             return out;
           },
           py::arg("queue"), py::arg("after"), py::arg("count"), py::arg("block_ms"),
           "Event stream entries after a stream id: [(id, {field: bytes})].")

      // Lane control
      .def("set_weight",
           [](Client &self, const std::string &queue, const std::string &group, uint32_t w) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_weight(c, q, g, w); });
           },
           py::arg("queue"), py::arg("group"), py::arg("weight"), "Set a lane's weight.")
      .def("clear_weight",
           [](Client &self, const std::string &queue, const std::string &group) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_clear_weight(c, q, g); });
           },
           py::arg("queue"), py::arg("group"), "Return a lane to the default weight.")
      .def("set_limit",
           [](Client &self, const std::string &queue, const std::string &group, uint32_t n) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_limit(c, q, g, n); });
           },
           py::arg("queue"), py::arg("group"), py::arg("limit"), "Set a lane's concurrency ceiling.")
      .def("clear_limit",
           [](Client &self, const std::string &queue, const std::string &group) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_clear_limit(c, q, g); });
           },
           py::arg("queue"), py::arg("group"), "Return a lane to the default limit.")
      .def("pause",
           [](Client &self, const std::string &queue, const std::string &group) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_pause(c, q, g); });
           },
           py::arg("queue"), py::arg("group"), "Pause a lane.")
      .def("resume",
           [](Client &self, const std::string &queue, const std::string &group) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_resume(c, q, g); });
           },
           py::arg("queue"), py::arg("group"), "Resume a paused lane.")
      .def("set_rate",
           [](Client &self, const std::string &queue, const std::string &group, uint32_t jobs,
              int64_t period_ms, uint32_t burst) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_rate(c, q, g, jobs, period_ms, burst); });
           },
           py::arg("queue"), py::arg("group"), py::arg("jobs"), py::arg("period_ms"), py::arg("burst"),
           "Set a lane's rate limit.")
      .def("clear_rate",
           [](Client &self, const std::string &queue, const std::string &group) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_clear_rate(c, q, g); });
           },
           py::arg("queue"), py::arg("group"), "Return a lane to the default rate.")
      .def("set_default_rate",
           [](Client &self, const std::string &queue, uint32_t jobs, int64_t period_ms, uint32_t burst) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_default_rate(c, q, jobs, period_ms, burst); });
           },
           py::arg("queue"), py::arg("jobs"), py::arg("period_ms"), py::arg("burst"),
           "Set the queue's default rate limit (jobs 0 clears it).")
      .def("set_cost_mode",
           [](Client &self, const std::string &queue, uint64_t quantum) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_cost_mode(c, q, quantum); });
           },
           py::arg("queue"), py::arg("quantum"), "Turn cost mode on (quantum 1..) or off (0).")
      .def("get_cost_mode",
           [](Client &self, const std::string &queue) {
             const char *q = cstr(queue, "queue name");
             uint64_t quantum = 0;
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_get_cost_mode(c, q, &quantum); });
             return quantum;
           },
           py::arg("queue"), "The queue's cost quantum (0 = cost mode off).")
      .def("set_wait_figures",
           [](Client &self, const std::string &queue, uint32_t window_s) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_wait_figures(c, q, window_s); });
           },
           py::arg("queue"), py::arg("window_s"), "Turn the wait figures on (window 1.. s) or off (0).")
      .def("get_wait_figures",
           [](Client &self, const std::string &queue) {
             const char *q = cstr(queue, "queue name");
             uint32_t window = 0;
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_get_wait_figures(c, q, &window); });
             return window;
           },
           py::arg("queue"), "The queue's wait figures window in s (0 = off).")
      .def("charge",
           [](Client &self, const std::string &queue, const std::string &group, uint64_t cost) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_charge(c, q, g, cost); });
           },
           py::arg("queue"), py::arg("group"), py::arg("cost"), "Charge a lane cost units (cost mode).")
      .def("throttle",
           [](Client &self, const std::string &queue, const std::string &group, int64_t ms) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_throttle(c, q, g, ms); });
           },
           py::arg("queue"), py::arg("group"), py::arg("ms"), "Start no job of a lane for ms.")
      .def("set_cap",
           [](Client &self, const std::string &queue, const std::string &group, uint64_t cap) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_cap(c, q, g, cap); });
           },
           py::arg("queue"), py::arg("group"), py::arg("cap"), "Set a lane's size cap.")
      .def("clear_cap",
           [](Client &self, const std::string &queue, const std::string &group) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_clear_cap(c, q, g); });
           },
           py::arg("queue"), py::arg("group"), "Return a lane to the default cap.")
      .def("set_default_cap",
           [](Client &self, const std::string &queue, uint64_t cap) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_default_cap(c, q, cap); });
           },
           py::arg("queue"), py::arg("cap"), "Set the queue's default size cap (0 clears it).")
      .def("set_default_weight",
           [](Client &self, const std::string &queue, uint32_t w) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_default_weight(c, q, w); });
           },
           py::arg("queue"), py::arg("weight"), "Set the queue's default lane weight.")
      .def("set_default_limit",
           [](Client &self, const std::string &queue, uint32_t n) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_default_limit(c, q, n); });
           },
           py::arg("queue"), py::arg("limit"), "Set the queue's default lane limit (0 clears it).")
      .def("set_default_max_attempts",
           [](Client &self, const std::string &queue, uint32_t n) {
             const char *q = cstr(queue, "queue name");
             py::gil_scoped_release nogil;
             self.call([&](echomq_client *c) { return echomq_set_default_max_attempts(c, q, n); });
           },
           py::arg("queue"), py::arg("max_attempts"), "Set the queue's default max attempts.")

      // Inspection
      .def("stats",
           [](Client &self, const std::string &queue) {
             const char *q = cstr(queue, "queue name");
             echomq_queue_stats s{};
             s.version = ECHOMQ_QUEUE_STATS_VERSION;
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) { return echomq_stats(c, q, &s); });
             }
             return stats_dict(s);
           },
           py::arg("queue"), "Queue figures as a dict.")
      .def("lane",
           [](Client &self, const std::string &queue, const std::string &group) {
             const char *q = cstr(queue, "queue name");
             const char *g = cstr(group, "group name");
             echomq_lane_info li{};
             li.version = ECHOMQ_LANE_INFO_VERSION;
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) { return echomq_lane(c, q, g, &li); });
             }
             return lane_dict(li);
           },
           py::arg("queue"), py::arg("group"), "One lane's figures as a dict.")
      .def("lanes",
           [](Client &self, const std::string &queue, const std::string &after, size_t count) {
             const char *q = cstr(queue, "queue name");
             const char *a = cstr(after, "cursor");
             emqpy::LaneListPtr list;
             {
               py::gil_scoped_release nogil;
               echomq_lane_list *l = nullptr;
               self.call([&](echomq_client *c) { return echomq_lanes(c, q, a, count, &l); });
               list.reset(l);
             }
             py::list page;
             py::object next = py::none();
             if (list) {
               size_t n = echomq_lane_list_count(list.get());
               for (size_t i = 0; i < n; ++i) page.append(lane_dict(*echomq_lane_list_at(list.get(), i)));
               const char *nx = echomq_lane_list_next(list.get());
               if (nx != nullptr) next = text(nx);
             }
             return py::make_tuple(page, next);
           },
           py::arg("queue"), py::arg("after"), py::arg("count"),
           "One page of lanes after a cursor: (list of dicts, next cursor or None).")
      .def("dead",
           [](Client &self, const std::string &queue, uint64_t offset, size_t count) {
             const char *q = cstr(queue, "queue name");
             emqpy::JobListPtr list;
             {
               py::gil_scoped_release nogil;
               echomq_job_list *l = nullptr;
               self.call([&](echomq_client *c) { return echomq_dead(c, q, offset, count, &l); });
               list.reset(l);
             }
             return job_list(list.get());
           },
           py::arg("queue"), py::arg("offset"), py::arg("count"), "Dead-lettered jobs as tuples.")
      .def("redrive",
           [](Client &self, const std::string &queue, const std::vector<uint64_t> &ids) {
             const char *q = cstr(queue, "queue name");
             uint64_t moved = 0;
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) { return echomq_redrive(c, q, ids.data(), ids.size(), &moved); });
             }
             return moved;
           },
           py::arg("queue"), py::arg("ids"), "Move dead jobs back to their lanes; returns how many moved.")
      .def("redrive_all",
           [](Client &self, const std::string &queue) {
             const char *q = cstr(queue, "queue name");
             uint64_t moved = 0;
             {
               py::gil_scoped_release nogil;
               self.call([&](echomq_client *c) { return echomq_redrive_all(c, q, &moved); });
             }
             return moved;
           },
           py::arg("queue"), "Redrive every dead job; returns how many moved.")
      .def("verify",
           [](Client &self, const std::string &queue) {
             const char *q = cstr(queue, "queue name");
             emqpy::ReportPtr report = fetch_report(self, [&](echomq_client *c, echomq_report **r) {
               return echomq_verify(c, q, r);
             });
             return report_lines(report.get());
           },
           py::arg("queue"), "Invariant violations, one line each (empty = healthy).")
      .def("repair",
           [](Client &self, const std::string &queue, bool apply, const std::string &cursor,
              size_t count) {
             const char *q = cstr(queue, "queue name");
             const char *from = cstr(cursor, "cursor");
             emqpy::ReportPtr report = fetch_report(self, [&](echomq_client *c, echomq_report **r) {
               return echomq_repair(c, q, apply ? 1 : 0, from, count, r);
             });
             py::list lines = report_lines(report.get());
             const char *next = echomq_report_cursor(report.get());
             return py::make_tuple(lines, next ? py::object(py::str(next)) : py::object(py::none()));
           },
           py::arg("queue"), py::arg("apply"), py::arg("cursor"), py::arg("count"),
           "One bounded repair step: (changes, next cursor or None when done).")
      .def("doctor",
           [](Client &self, const std::string &queue, const std::string &acl_user) {
             const char *q = cstr(queue, "queue name");
             const char *u = acl_user.empty() ? nullptr : cstr(acl_user, "acl user");
             emqpy::ReportPtr report = fetch_report(self, [&](echomq_client *c, echomq_report **r) {
               return echomq_doctor(c, q, u, r, nullptr);
             });
             return report_lines(report.get());
           },
           py::arg("queue"), py::arg("acl_user") = std::string(),
           "Server checks, one line each: '<ok|warn|fail> <check>: <finding>; <advice>'.");

  emqpy::register_schedules(m);
}
