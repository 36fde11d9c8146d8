// module.cpp: the private compiled module echomq._echomq.
//
// A thin layer over the C API of libechomq, split by topic as the C API is
// (bind.hpp lists the files). Names, numbers and payloads are checked and
// converted by the pure-Python package (echomq/); this module copies its
// arguments out of Python objects, releases the GIL around every call that
// may touch the network, and hands results back as plain tuples and dicts.
// Failed calls raise the classes of echomq.errors.
#include "bind.hpp"
#include "schedules.hpp"

namespace py = pybind11;
using emqpy::Error;

namespace {

// Raises the echomq.errors class for a status, with the handle's message.
void raise_error(const Error &e) {
  py::object errors = py::module_::import("echomq.errors");
  py::object exc = errors.attr("_from_status")(e.code, emqpy::text(e.message.c_str()));
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc.ptr())), exc.ptr());
}

}  // namespace

void bind_flows(py::module_ &m);  // src/flows.cpp

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
  m.attr("JOB_FIELDS") = emqpy::job_field_names();
  m.attr("JOB_STATES") = emqpy::job_state_names();

  emqpy::bind_constants(m);
  emqpy::bind_worker(m);
  py::class_<emqpy::Client> client = emqpy::bind_client(m);
  emqpy::bind_queue(client);
  emqpy::bind_lanes(client);
  emqpy::bind_outcomes(client);
  emqpy::bind_inspect(client);
  emqpy::bind_ops(client);
  emqpy::bind_lifecycle(client);
  emqpy::register_schedules(m);
  bind_flows(m);
}
