// inspect.cpp: figures, lanes, dead letters, verify and repair
// (capi/include/echomq/inspect.h).
#include <vector>

#include "bind.hpp"

namespace emqpy {
namespace {

int redrive(echomq_client *c, const char *q, std::vector<uint64_t> ids, uint64_t *moved) {
  return echomq_redrive(c, q, ids.data(), ids.size(), moved);
}

// One bounded repair step: (changes, next cursor or None when done).
py::tuple repair(Client &self, const std::string &queue, bool apply, const std::string &cursor, size_t count) {
  Out<echomq_report *> report;
  const char *q = cstr(queue, "queue name");
  const char *from = cstr(cursor, "cursor");
  {
    py::gil_scoped_release nogil;
    self.call([&](echomq_client *c) { return echomq_repair(c, q, apply ? 1 : 0, from, count, report.ptr()); });
  }
  const char *next = echomq_report_cursor(report.raw);
  py::object cur = next ? py::object(py::str(next)) : py::object(py::none());
  return py::make_tuple(report.value(), cur);
}

}  // namespace

void bind_inspect(py::class_<Client> &c) {
  const auto q = py::arg("queue");
  def<&echomq_stats>(c, "stats", q, "Queue figures as a dict.");
  def<&echomq_lane>(c, "lane", q, py::arg("group"), "One lane's figures as a dict.");
  def<&echomq_lanes>(c, "lanes", q, py::arg("after"), py::arg("count"),
                     "One page of lanes after a cursor: (list of dicts, next cursor or None).");
  def<&echomq_dead>(c, "dead", q, py::arg("offset"), py::arg("count"), "Dead-lettered jobs as tuples.");
  def<&redrive>(c, "redrive", q, py::arg("ids"), "Move dead jobs back to their lanes; returns how many moved.");
  def<&echomq_redrive_all>(c, "redrive_all", q, "Redrive every dead job; returns how many moved.");
  def<&echomq_verify>(c, "verify", q, "Invariant violations, one line each (empty = healthy).");
  c.def("repair", &repair, q, py::arg("apply"), py::arg("cursor"), py::arg("count"),
        "One bounded repair step: (changes, next cursor or None when done).");
}

}  // namespace emqpy
