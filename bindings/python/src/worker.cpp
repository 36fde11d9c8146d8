// worker.cpp: the worker engine (capi/include/echomq/worker.h). The policy
// (retry delays, the idle timeout, what became of a reported job) is the
// engine's; echomq/worker.py only runs the handlers.
#include "fields.hpp"

namespace emqpy {
namespace {

using WO = echomq_worker_options;
using WS = echomq_worker_stats;

// The engine's options by name: WORKER_DEFAULTS lists them with their
// defaults, and Worker(url, queue, options) takes any of them.
const Field<WO> kOptions[] = {
    {"slots", &WO::slots},
    {"prefetch", &WO::prefetch},
    {"lease_ms", &WO::lease_ms},
    {"weighted", &WO::weighted},
    {"retry_delay_ms", &WO::retry_delay_ms},
    {"idle_wait_ms", &WO::idle_wait_ms},
    {"connect_timeout_ms", &WO::connect_timeout_ms},
    {"command_timeout_ms", &WO::command_timeout_ms},
    {"wait_replicas", &WO::wait_replicas},
    {"wait_aof", &WO::wait_aof},
    {"wait_timeout_ms", &WO::wait_timeout_ms},
    {"target_wait_ms", &WO::target_wait_ms},
    {"report_outcomes", &WO::report_outcomes},
    {"idle_timeout_ms", &WO::idle_timeout_ms},
};

const Field<WS> kStats[] = {
    {"claimed", &WS::claimed},   {"done", &WS::done},         {"failed", &WS::failed},
    {"released", &WS::released}, {"extended", &WS::extended}, {"lost", &WS::lost},
    {"round_trips", &WS::round_trips}, {"errors", &WS::errors}, {"running", &WS::running},
    {"buffered", &WS::buffered}, {"retried", &WS::retried},   {"delayed", &WS::delayed},
    {"dead", &WS::dead},         {"unconfirmed", &WS::unconfirmed},
    {"canceled", &WS::canceled}, {"timed_out", &WS::timed_out},
};

// A job handed out by the engine, kept until it is reported.
struct WorkerJob {
  echomq::JobPtr job;
};

// An echomq_worker handle. Its calls are thread-safe in C, so no lock here;
// the Python object lives while any thread is inside one of its methods.
struct Worker {
  Worker(const std::string &url, const std::string &queue, const py::dict &options) {
    WO o = ECHOMQ_WORKER_OPTIONS_INIT;
    read_fields(o, kOptions, options);
    echomq_worker *h = nullptr;
    int rc = echomq_worker_new(&h, cstr(url, "url"), cstr(queue, "queue name"), &o);
    if (rc != ECHOMQ_OK) throw_status(rc, "cannot create the worker (bad URL, queue name or option)");
    w.reset(h);
  }
  // Turns a failed status into an Error with the engine's message.
  void check(int rc) {
    if (rc >= 0) return;
    char buf[1024];
    int last = echomq_worker_last_error(w.get(), buf, sizeof buf);
    throw_status(rc, last == rc && buf[0] != '\0' ? buf : echomq_strerror(rc));
  }
  // Runs a report call without the GIL; its status says what became of the
  // job (worker.h, "Report outcomes").
  template <class F>
  int report(F &&f) {
    py::gil_scoped_release nogil;
    return f(w.get());
  }
  echomq::WorkerPtr w;
};

py::object next(Worker &self, int64_t timeout_ms) {
  echomq_job *j = nullptr;
  int rc;
  {
    py::gil_scoped_release nogil;
    rc = echomq_worker_next(self.w.get(), timeout_ms, &j);
  }
  echomq::JobPtr job(j);
  if (rc == ECHOMQ_EMPTY) return py::none();
  if (rc == ECHOMQ_ECANCELED) return py::str("stopped");
  self.check(rc);
  py::tuple t = job_tuple(job.get());
  return py::make_tuple(t, WorkerJob{std::move(job)});
}

int done(Worker &self, const WorkerJob &j, uint64_t cost, const py::object &result, const std::string &dropped) {
  echomq_job_report r = ECHOMQ_JOB_REPORT_INIT;
  r.cost = cost;
  if (!result.is_none()) {  // `result` keeps the bytes alive while the GIL is released
    Bytes b = bytes_view(result, "result");
    r.result = b.data;
    r.result_len = b.size;
  }
  if (!dropped.empty()) r.result_dropped = dropped.c_str();
  return self.report([&](echomq_worker *w) { return echomq_worker_done_with(w, j.job.get(), &r); });
}

int fail(Worker &self, const WorkerJob &j, const std::string &reason, int64_t retry_delay_ms, uint64_t cost) {
  echomq_job_report r = ECHOMQ_JOB_REPORT_INIT;
  r.cost = cost;
  const char *why = reason.c_str();  // an embedded NUL only shortens a reason
  return self.report([&](echomq_worker *w) { return echomq_worker_fail_with(w, j.job.get(), why, retry_delay_ms, &r); });
}

int discard(Worker &self, const WorkerJob &j, const std::string &reason) {
  const char *why = reason.c_str();
  return self.report([&](echomq_worker *w) { return echomq_worker_discard(w, j.job.get(), why); });
}

bool stop(Worker &self, int mode, int64_t timeout_ms) {
  int rc;
  {
    py::gil_scoped_release nogil;
    rc = echomq_worker_stop(self.w.get(), mode, timeout_ms);
  }
  if (rc != ECHOMQ_OK && rc != ECHOMQ_ETIMEOUT) self.check(rc);
  return rc == ECHOMQ_OK;
}

// The next running job the engine halted: (id, token, why), None at the
// timeout, or "stopped" once the engine has stopped (echomq_worker_next_halt).
py::object next_halt(Worker &self, int64_t timeout_ms) {
  uint64_t id = 0, token = 0;
  int why = 0, rc;
  {
    py::gil_scoped_release nogil;
    rc = echomq_worker_next_halt(self.w.get(), timeout_ms, &id, &token, &why);
  }
  if (rc == ECHOMQ_EMPTY) return py::none();
  if (rc == ECHOMQ_ECANCELED) return py::str("stopped");
  self.check(rc);
  return py::make_tuple(id, token, why);
}

py::dict stats(Worker &self) {
  WS s = versioned<WS>(ECHOMQ_WORKER_STATS_VERSION);
  {
    py::gil_scoped_release nogil;
    self.check(echomq_worker_stats_get(self.w.get(), &s));
  }
  return write_fields(s, kStats);
}

py::tuple last_error(Worker &self) {
  char buf[1024];
  int code;
  {
    py::gil_scoped_release nogil;
    code = echomq_worker_last_error(self.w.get(), buf, sizeof buf);
  }
  return py::make_tuple(code, text(buf));
}

}  // namespace

void bind_worker(py::module_ &m) {
  WO d = ECHOMQ_WORKER_OPTIONS_INIT;
  m.attr("WORKER_DEFAULTS") = write_fields(d, kOptions);

  // The job handles the engine hands out: kept whole so that done / fail /
  // discard report exactly the delivery that was handed out.
  py::class_<WorkerJob>(m, "WorkerJob", "A job handed out by a Worker engine (opaque).")
      .def_property_readonly("id", [](const WorkerJob &j) { return echomq_job_id(j.job.get()); })
      .def_property_readonly("token", [](const WorkerJob &j) { return echomq_job_token(j.job.get()); })
      .def_property_readonly("halted", [](const WorkerJob &j) { return echomq_job_halted(j.job.get()); },
                             "0, or why the engine told the handler to stop (HALT_CANCELED, HALT_TIMED_OUT).");

  py::class_<Worker>(m, "Worker", "The worker engine of libechomq (an echomq_worker handle).")
      // No I/O: the factory keeps the GIL.
      .def(py::init<const std::string &, const std::string &, const py::dict &>(), py::arg("url"), py::arg("queue"),
           py::arg("options"), "An engine with options by field name (WORKER_DEFAULTS lists them).")
      .def(
          "start",
          [](Worker &self) {
            py::gil_scoped_release nogil;
            self.check(echomq_worker_start(self.w.get()));
          },
          "Connect and start the engine.")
      .def("next", &next, py::arg("timeout_ms"),
           "(job tuple, handle), None at the timeout, or 'stopped' once the engine stops (also by itself, "
           "on its idle timeout).")
      .def("done", &done, py::arg("job"), py::arg("cost") = 0, py::arg("result") = py::none(),
           py::arg("dropped") = std::string(),
           "Report success, with the job's result (bytes, or None; or why it was dropped) and its cost (units "
           "charged in cost mode, 0 = the measured time) in one settlement; returns the status.")
      .def("fail", &fail, py::arg("job"), py::arg("reason"), py::arg("retry_delay_ms"), py::arg("cost") = 0,
           "Report a failure; returns the status (WILL_RETRY, WILL_DIE with report_outcomes).")
      .def("discard", &discard, py::arg("job"), py::arg("reason"), "Dead-letter now; returns the status.")
      .def("stop", &stop, py::arg("mode"), py::arg("timeout_ms"), "Stop; True unless a drain left jobs running.")
      .def("next_halt", &next_halt, py::arg("timeout_ms"),
           "(id, token, why) of the next running job halted (canceled or out of time), None at the timeout, "
           "or 'stopped' once the engine stops.")
      .def("stats", &stats, "The engine's counters as a dict.")
      .def("last_error", &last_error,
           "(status, message) of the engine's last failed server call ((0, '') if none).");
}

}  // namespace emqpy
