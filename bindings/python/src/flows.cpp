// flows.cpp: the flow calls of echomq/flows.h for the Python package
// (echomq/flows.py builds on them). Module-level functions on a Client.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "handle.hpp"

namespace py = pybind11;

namespace {

// One job of a flow: name, parent ("" = a root), on_fail, queue ("" = the
// flow's), lane, payload.
using FlowRow = std::tuple<std::string, std::string, int, std::string, std::string, py::bytes>;
using FlowPtr = std::unique_ptr<echomq_flow, decltype(&echomq_flow_free)>;
using InfoPtr = std::unique_ptr<echomq_flow_info, decltype(&echomq_flow_info_free)>;

std::string bytesAt(const char *p, size_t n) { return std::string(p, n); }

}  // namespace

void bind_flows(py::module_ &m) {
  m.def(
      "flow_enqueue",
      [](emqpy::Client &self, const std::string &queue, const std::vector<FlowRow> &rows, uint32_t max_attempts) {
        const char *q = emqpy::cstr(queue, "queue name");
        FlowPtr f(echomq_flow_create(), &echomq_flow_free);
        if (!f) throw emqpy::Error{ECHOMQ_ENOMEM, "cannot allocate a flow"};
        for (const FlowRow &r : rows) {
          const std::string &name = std::get<0>(r), &parent = std::get<1>(r), &other = std::get<3>(r);
          std::string payload = std::get<5>(r);
          int rc = echomq_flow_add(f.get(), emqpy::cstr(name, "flow job name"),
                                   parent.empty() ? nullptr : emqpy::cstr(parent, "parent name"), std::get<2>(r),
                                   other.empty() ? nullptr : emqpy::cstr(other, "queue name"),
                                   emqpy::cstr(std::get<4>(r), "lane"), payload.data(), payload.size());
          if (rc == ECHOMQ_ETOOLARGE && echomq_flow_count(f.get()) >= ECHOMQ_FLOW_MAX)
            emqpy::throw_status(rc, ("flow holds more than " + std::to_string(ECHOMQ_FLOW_MAX) +
                                     " jobs, over the bound of a flow (nothing was enqueued)").c_str());
          if (rc != ECHOMQ_OK) emqpy::throw_status(rc, ("flow job '" + name + "': " + echomq_strerror(rc)).c_str());
        }
        {
          py::gil_scoped_release nogil;
          self.call([&](echomq_client *c) { return echomq_enqueue_flow(c, q, f.get(), max_attempts); });
        }
        std::vector<uint64_t> ids;
        for (size_t i = 0; i < rows.size(); ++i) ids.push_back(echomq_flow_id(f.get(), i));
        return ids;
      },
      py::arg("client"), py::arg("queue"), py::arg("rows"), py::arg("max_attempts"),
      "Enqueue a flow: rows of (name, parent, on_fail, queue, lane, payload); the ids in row order.");
  m.def(
      "flow_info",
      [](emqpy::Client &self, const std::string &queue, uint64_t id) {
        const char *q = emqpy::cstr(queue, "queue name");
        InfoPtr fi(nullptr, &echomq_flow_info_free);
        {
          py::gil_scoped_release nogil;
          echomq_flow_info *raw = nullptr;
          self.call([&](echomq_client *c) { return echomq_flow_info_get(c, q, id, &raw); });
          fi.reset(raw);
        }
        const echomq_flow_info *f = fi.get();
        py::list kids;
        for (size_t i = 0; i < echomq_flow_info_count(f); ++i) {
          size_t el = 0, rl = 0;
          const char *e = echomq_flow_info_child_error(f, i, &el);
          const char *r = echomq_flow_info_child_result(f, i, &rl);
          kids.append(py::make_tuple(echomq_flow_info_child(f, i), echomq_flow_info_child_state(f, i),
                                     echomq_flow_info_child_attempts(f, i), echomq_flow_info_child_finished_at(f, i),
                                     py::bytes(bytesAt(e, el)), py::bytes(bytesAt(r, rl))));
        }
        return py::make_tuple(echomq_flow_info_state(f), echomq_flow_info_parent(f), echomq_flow_info_on_fail(f),
                              echomq_flow_info_waiting(f), kids);
      },
      py::arg("client"), py::arg("queue"), py::arg("id"),
      "A job's links: (state, parent, on_fail, waiting, [(id, state, attempts, finished ms, error, result)]).");
  m.def(
      "flow_delete",
      [](emqpy::Client &self, const std::string &queue, uint64_t id) {
        const char *q = emqpy::cstr(queue, "queue name");
        uint64_t n = 0;
        py::gil_scoped_release nogil;
        self.call([&](echomq_client *c) { return echomq_delete_flow(c, q, id, &n); });
        return n;
      },
      py::arg("client"), py::arg("queue"), py::arg("id"), "Delete the unfinished flow of job id, whole: jobs deleted.");
}
