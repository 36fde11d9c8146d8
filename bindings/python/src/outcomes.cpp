// outcomes.cpp: results, progress, retention, waiting and the event stream
// (capi/include/echomq/outcomes.h).
#include "bind.hpp"

namespace emqpy {
namespace {

// The C calls' (pointer, length) pairs as one bytes argument.
int ack_result(echomq_client *c, const char *q, uint64_t id, uint64_t token, Bytes r) {
  return echomq_ack_result(c, q, id, token, r.data, r.size);
}
int progress(echomq_client *c, const char *q, uint64_t id, uint64_t token, Bytes v) {
  return echomq_progress(c, q, id, token, v.data, v.size);
}

// Entries after a stream id: [(id, {field: bytes})].
py::list events_read(Client &self, const std::string &queue, const std::string &after, size_t count,
                     int64_t block_ms) {
  const char *q = cstr(queue, "queue name");
  const char *a = cstr(after, "stream id");
  echomq::EventListPtr list;
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
}

}  // namespace

void bind_outcomes(py::class_<Client> &c) {
  const auto q = py::arg("queue");
  def<&ack_result>(c, "ack_result", q, py::arg("id"), py::arg("token"), py::arg("result"),
                   "Acknowledge a leased job with a result (kept when its outcome is retained).");
  def<&progress>(c, "progress", q, py::arg("id"), py::arg("token"), py::arg("value"), "Report a held job's progress.");
  def<&echomq_set_retention>(c, "set_retention", q, py::arg("keep_ms"), py::arg("keep_last"),
                             "Retain completed jobs' outcomes.");
  def<&echomq_clear_retention>(c, "clear_retention", q, "Stop retaining outcomes.");
  def<&echomq_set_events>(c, "set_events", q, py::arg("max_len"), py::arg("flags"),
                          "Turn the event stream on (flags: 0 or EVENTS_ENQUEUED).");
  def<&echomq_clear_events>(c, "clear_events", q, "Turn the event stream off.");
  def<&echomq_wait_job>(c, "wait_job", q, py::arg("id"), py::arg("timeout_ms"),
                        "Wait for a job to complete or die: its tuple, or None when it had not (ECHOMQ_PENDING).");
  c.def("events_read", &events_read, q, py::arg("after"), py::arg("count"), py::arg("block_ms"),
        "Event stream entries after a stream id: [(id, {field: bytes})].");
}

}  // namespace emqpy
