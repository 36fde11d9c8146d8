// ops.cpp: jobs by id, purges, the queues of a server, sharded queues and the
// doctor (capi/include/echomq/ops.h).
#include "bind.hpp"

namespace emqpy {
namespace {

// One bounded purge step: (removed, more, next cursor).
py::tuple purge_lane(Client &self, const std::string &queue, const std::string &group, uint32_t max,
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
}

// acl_user "" checks the connected user.
int doctor(echomq_client *c, const char *q, const char *acl_user, echomq_report **out) {
  return echomq_doctor(c, q, *acl_user ? acl_user : nullptr, out, nullptr);
}

}  // namespace

void bind_ops(py::class_<Client> &c) {
  const auto q = py::arg("queue");
  def<&echomq_get_job>(c, "get_job", q, py::arg("id"), "A job by id as a tuple (NotFoundError if none).");
  def<&echomq_delete_job>(c, "delete_job", q, py::arg("id"), "Delete a pending, delayed or dead job.");
  c.def("purge_lane", &purge_lane, q, py::arg("group"), py::arg("max"), py::arg("clear_settings"), py::arg("cursor"),
        "One bounded purge step: (removed, more, next cursor).");
  def<&echomq_queues>(c, "queues", "The queues of the connected server, in byte order.");
  def<&echomq_shards_create>(c, "shards_create", q, py::arg("shards"),
                             "Create a sharded queue over `shards` shard queues, or open it with that count.");
  def<&echomq_shards>(c, "shards", q, "The shard queues of a queue, in shard order ([] for a plain queue).");
  def<&doctor>(c, "doctor", q, py::arg("acl_user") = std::string(),
               "Server checks, one line each: '<ok|warn|fail> <check>: <finding>; <advice>'.");
}

}  // namespace emqpy
