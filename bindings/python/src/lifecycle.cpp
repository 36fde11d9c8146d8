// lifecycle.cpp: cancel, time limits, start deadlines, the queue-wide
// ceiling and rate, and lane limits that burst (capi/include/echomq/
// lifecycle.h). The enqueue options of a job's own limits are fields of the
// enqueue options dict (queue.cpp); echomq/lifecycle.py converts and checks.
#include "bind.hpp"

namespace emqpy {

template <>
struct Out<echomq_lifecycle_settings> {
  echomq_lifecycle_settings v = versioned<echomq_lifecycle_settings>(ECHOMQ_LIFECYCLE_SETTINGS_VERSION);
  echomq_lifecycle_settings *ptr() { return &v; }
  py::object value() {
    py::dict d;
    d["default_timeout_ms"] = v.default_timeout_ms;
    d["queue_limit"] = v.queue_limit;
    d["rate_jobs"] = v.rate_jobs;
    d["rate_period_ms"] = v.rate_period_ms;
    d["rate_burst"] = v.rate_burst;
    d["leased"] = v.leased;
    d["tokens"] = v.tokens;
    d["next_token_at_ms"] = v.next_token_at_ms;
    return d;
  }
};

void bind_lifecycle(py::class_<Client> &c) {
  const auto q = py::arg("queue");
  def<&echomq_cancel>(c, "cancel", q, py::arg("id"), py::arg("reason"), py::arg("flags"),
                      "Cancel a job; returns the JobState it had.");
  def<&echomq_set_default_timeout>(c, "set_default_timeout", q, py::arg("timeout_ms"),
                                   "Set the queue's default time limit of an attempt (0 clears it).");
  def<&echomq_set_queue_limit>(c, "set_queue_limit", q, py::arg("limit"),
                               "Set the queue-wide ceiling on jobs leased at once (0 clears it).");
  def<&echomq_set_queue_rate>(c, "set_queue_rate", q, py::arg("jobs"), py::arg("period_ms"), py::arg("burst"),
                              "Set the queue-wide rate (jobs 0 clears it).");
  def<&echomq_get_lifecycle>(c, "get_lifecycle", q, "The queue's lifecycle settings as a dict.");
  def<&echomq_set_limit_burst>(c, "set_limit_burst", q, py::arg("group"), py::arg("limit"), py::arg("burst"),
                               "Set a lane's limit and its burst ceiling together (burst 0: none).");
}

}  // namespace emqpy
