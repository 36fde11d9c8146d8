// queue.cpp: enqueue, claim and settle (capi/include/echomq/queue.h).
#include <vector>

#include "fields.hpp"

namespace emqpy {
namespace {

using O = echomq_enqueue_options;

// The enqueue options by name (echomq/queue.py passes them as a dict); the
// idempotency key goes apart: a batch takes one per job.
const Field<O> kEnqueueFields[] = {
    {"delay_ms", &O::delay_ms},       {"max_attempts", &O::max_attempts},
    {"dedup_window_ms", &O::dedup_window_ms}, {"keep_ms", &O::keep_ms},
    {"keep_last", &O::keep_last},     {"cost_estimate", &O::cost_estimate},
    {"at_ms", &O::at_ms},             {"timeout_ms", &O::timeout_ms},
    {"expires_at_ms", &O::expires_at_ms}, {"ttl_ms", &O::ttl_ms},
    {"expire_flags", &O::expire_flags},
};

// A job's name and headers from the options ("name": str, "headers": a
// dict of str): kept here while the call runs, as the options point into it.
struct Meta {
  std::string name;
  std::vector<std::string> text;  // key, value, key, value, ...
  std::vector<echomq_header> headers;
};

// Reads a headers dict into m (its pointers stay valid while m lives).
void read_headers(const py::handle &d, Meta &m) {
  for (auto h : py::cast<py::dict>(d)) {
    m.text.push_back(py::cast<std::string>(h.first));
    m.text.push_back(py::cast<std::string>(h.second));
  }
  for (size_t i = 0; i < m.text.size(); i += 2)
    m.headers.push_back({cstr(m.text[i], "header key"), cstr(m.text[i + 1], "header value")});
}

O enqueue_options(const py::dict &d, Meta &m) {
  O o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  py::dict numeric;
  for (auto item : d) {
    const std::string key = py::cast<std::string>(item.first);
    if (key == "name") {
      m.name = py::cast<std::string>(item.second);
      o.name = cstr(m.name, "job name");
    } else if (key == "headers") {
      read_headers(item.second, m);
      o.headers = m.headers.data();
      o.header_count = m.headers.size();
    } else {
      numeric[item.first] = item.second;
    }
  }
  read_fields(o, kEnqueueFields, numeric);
  return o;
}

py::tuple enqueue(Client &self, const std::string &queue, const std::string &group, const py::bytes &payload,
                  const py::dict &options, const std::optional<std::string> &key) {
  const char *q = cstr(queue, "queue name");
  const char *g = cstr(group, "group name");
  Bytes p = bytes_view(payload, "payload");
  Meta m;
  O o = enqueue_options(options, m);
  if (key) o.idempotency_key = cstr(*key, "idempotency key");
  uint64_t id = 0;
  int rc;
  {
    py::gil_scoped_release nogil;
    rc = self.call([&](echomq_client *c) { return echomq_enqueue(c, q, g, p.data, p.size, &o, &id); });
  }
  return py::make_tuple(id, rc == ECHOMQ_DUPLICATE);
}

py::list enqueue_batch(Client &self, const std::string &queue, const py::list &groups, const py::list &payloads,
                       const std::optional<py::list> &keys, const py::dict &options,
                       const std::optional<py::list> &metas) {
  const char *q = cstr(queue, "queue name");
  if (groups.size() != payloads.size() || (keys && keys->size() != groups.size()) ||
      (metas && metas->size() != groups.size()))
    throw py::value_error("groups, payloads, keys and metas differ in length");
  echomq::BatchPtr batch(echomq_batch_create());
  if (!batch) throw Error{ECHOMQ_ENOMEM, "cannot allocate a batch"};
  // Adding copies and checks each job; no I/O, so the GIL stays.
  for (size_t i = 0; i < groups.size(); ++i) {
    std::string g = py::cast<std::string>(groups[i]);
    std::string k = keys ? py::cast<std::string>((*keys)[i]) : std::string();
    Bytes p = bytes_view(payloads[i], "payload");
    // An entry's own name and headers: (name or None, headers dict or None).
    Meta em;
    const char *name = nullptr;
    if (metas && !(*metas)[i].is_none()) {
      auto nh = py::cast<py::tuple>((*metas)[i]);
      if (!nh[0].is_none()) {
        em.name = py::cast<std::string>(nh[0]);
        name = cstr(em.name, "job name");
      }
      if (!nh[1].is_none()) read_headers(nh[1], em);
    }
    int rc = echomq_batch_add_named(batch.get(), cstr(g, "group name"), p.data, p.size, cstr(k, "idempotency key"),
                                    name, em.headers.data(), em.headers.size());
    if (rc != ECHOMQ_OK)
      throw_status(rc, ("batch entry " + std::to_string(i) + ": " + echomq_strerror(rc) + " (group " + g + ")").c_str());
  }
  Meta m;
  O o = enqueue_options(options, m);
  {
    py::gil_scoped_release nogil;
    self.call([&](echomq_client *c) { return echomq_enqueue_batch(c, q, batch.get(), &o); });
  }
  const size_t n = echomq_batch_count(batch.get());
  py::list out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = py::make_tuple(echomq_batch_id(batch.get(), i), echomq_batch_duplicate(batch.get(), i) != 0);
  return out;
}

std::vector<int> ack_many(Client &self, const std::string &queue, const std::vector<uint64_t> &ids,
                          const std::vector<uint64_t> &tokens) {
  const char *q = cstr(queue, "queue name");
  if (ids.size() != tokens.size()) throw py::value_error("ids and tokens differ in length");
  std::vector<int> statuses(ids.size(), ECHOMQ_OK);
  py::gil_scoped_release nogil;
  self.call([&](echomq_client *c) {
    return echomq_ack_many(c, q, ids.data(), tokens.data(), ids.size(), statuses.data(), nullptr);
  });
  return statuses;
}

// Gives a leased job back unstarted: one settlement list of one entry.
int release(echomq_client *c, const char *q, uint64_t id, uint64_t token, int *status) {
  echomq::SettlePtr s(echomq_settle_create());
  if (!s) return ECHOMQ_ENOMEM;
  int rc = echomq_settle_fail(s.get(), id, token, nullptr, ECHOMQ_RETRY_RELEASE);
  if (rc == ECHOMQ_OK) rc = echomq_settle_claim(c, q, s.get(), 1000, 0, 0, nullptr);
  if (rc >= 0) *status = echomq_settle_status(s.get(), 0);
  return rc;
}

}  // namespace

void bind_queue(py::class_<Client> &c) {
  c.def("enqueue", &enqueue, py::arg("queue"), py::arg("group"), py::arg("payload"), py::arg("options"),
        py::arg("key") = py::none(),
        "Enqueue one job (options: a dict of echomq_enqueue_options fields; key: an idempotency key): "
        "(id, was a duplicate).");
  c.def("enqueue_batch", &enqueue_batch, py::arg("queue"), py::arg("groups"), py::arg("payloads"), py::arg("keys"),
        py::arg("options"), py::arg("metas") = py::none(),
        "Enqueue many jobs in one round trip (keys: one per job, \"\" = none, or None; metas: one (name, headers) "
        "per job, either None, or None): [(id, was a duplicate)].");
  def<&echomq_claim>(c, "claim", py::arg("queue"), py::arg("lease_ms"), "Claim one job: a tuple, or None when empty.");
  def<&echomq_bclaim>(c, "bclaim", py::arg("queue"), py::arg("lease_ms"), py::arg("timeout_ms"),
                      "Blocking claim: waits up to timeout_ms on the server; None at the timeout.");
  def<&echomq_wclaim>(c, "wclaim", py::arg("queue"), py::arg("lease_ms"), py::arg("max"),
                      "Weighted claim: up to max jobs from one lane, as a list of tuples.");
  def<&echomq_claim_batch>(c, "claim_batch", py::arg("queue"), py::arg("lease_ms"), py::arg("n"), py::arg("weighted"),
                           "Claim up to n jobs (n turns of the ring) in one call, as a list of tuples.");
  def<&echomq_ack>(c, "ack", py::arg("queue"), py::arg("id"), py::arg("token"), "Acknowledge a leased job.");
  c.def("ack_many", &ack_many, py::arg("queue"), py::arg("ids"), py::arg("tokens"),
        "Acknowledge many jobs in one round trip; returns one status per job.");
  def<&echomq_ack_claim>(c, "ack_claim", py::arg("queue"), py::arg("id"), py::arg("token"), py::arg("lease_ms"),
                         "Acknowledge, then claim the next job in the same round trip.");
  def<&echomq_fail>(c, "fail", py::arg("queue"), py::arg("id"), py::arg("token"), py::arg("reason"),
                    py::arg("retry_delay_ms"), "Fail the current attempt; returns FAIL_RETRY, FAIL_DELAYED or FAIL_DEAD.");
  def<&echomq_extend>(c, "extend", py::arg("queue"), py::arg("id"), py::arg("token"), py::arg("lease_ms"),
                      "Extend a lease; returns the new deadline (server ms).");
  def<&release>(c, "release", py::arg("queue"), py::arg("id"), py::arg("token"),
                "Give a leased job back to its lane unstarted (the attempt not counted): its status.");
}

}  // namespace emqpy
