// echomq/flows.h: flows over the core (cpp/flows.cpp). Thin: the checks
// and the logic are the core's and the scripts'.
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "guard.hpp"
#include "handles.hpp"
#include "validate.hpp"

using emqcapi::guard;
using emqcapi::guarded;

struct echomq_flow {
  std::vector<echomq::FlowJob> jobs;
  std::vector<uint64_t> ids;  // after a successful enqueue
};

struct echomq_flow_info {
  echomq::FlowInfo f;
};

namespace {

const echomq::FlowChild* childAt(const echomq_flow_info* fi, size_t i) {
  return fi && i < fi->f.children.size() ? &fi->f.children[i] : nullptr;
}

const char* bytesOf(const std::string* s, size_t* len) {
  if (len) *len = s ? s->size() : 0;
  return s ? s->c_str() : "";
}

}  // namespace

int echomq_flow_new(echomq_flow** out) {
  if (!out) return ECHOMQ_EINVAL;
  *out = new (std::nothrow) echomq_flow();
  return *out ? ECHOMQ_OK : ECHOMQ_ENOMEM;
}

echomq_flow* echomq_flow_create(void) { return new (std::nothrow) echomq_flow(); }
void echomq_flow_free(echomq_flow* f) { delete f; }

int echomq_flow_add(echomq_flow* f, const char* name, const char* parent, int on_fail, const char* queue,
                    const char* group, const char* payload, size_t payload_len) {
  if (!f) return ECHOMQ_EINVAL;
  return guard([&] {
    if (!name) echomq::invalid("flow job name is NULL");
    echomq::checkLaneName(group);
    if (on_fail < ECHOMQ_FLOW_FAIL || on_fail > ECHOMQ_FLOW_CONTINUE) echomq::invalid("bad on_fail");
    if (payload_len > 0 && !payload) echomq::invalid("payload is NULL with a non-zero length");
    if (payload_len > ECHOMQ_HARD_MAX_PAYLOAD) echomq::fail(ECHOMQ_ETOOLARGE, "payload too large");
    if (f->jobs.size() >= ECHOMQ_FLOW_MAX)
      echomq::fail(ECHOMQ_ETOOLARGE, "flow holds " + std::to_string(ECHOMQ_FLOW_MAX) + " jobs, its bound");
    size_t nlen = std::strlen(name);
    if (nlen == 0 || nlen > ECHOMQ_FLOW_NAME_MAX)
      echomq::invalid("flow job name must be 1.." + std::to_string(ECHOMQ_FLOW_NAME_MAX) + " bytes");
    for (const echomq::FlowJob& j : f->jobs)
      if (j.name == name) echomq::invalid("flow names job '" + j.name + "' twice");
    echomq::FlowJob j;
    j.name = name;
    j.parent = parent ? parent : "";
    j.on_fail = on_fail;
    j.queue = queue ? queue : "";
    j.group = group;
    j.payload.assign(payload ? payload : "", payload_len);
    f->jobs.push_back(std::move(j));
    f->ids.clear();
  });
}

size_t echomq_flow_count(const echomq_flow* f) { return f ? f->jobs.size() : 0; }
uint64_t echomq_flow_id(const echomq_flow* f, size_t i) { return f && i < f->ids.size() ? f->ids[i] : 0; }
uint64_t echomq_flow_id_of(const echomq_flow* f, const char* name) {
  if (!f || !name) return 0;
  for (size_t i = 0; i < f->ids.size(); ++i)
    if (f->jobs[i].name == name) return f->ids[i];
  return 0;
}

int echomq_enqueue_flow(echomq_client* c, const char* queue, echomq_flow* f, uint32_t max_attempts) {
  return guarded(c, [&] {
    if (!f) echomq::invalid("flow is NULL");
    f->ids.clear();
    f->ids = c->core.enqueueFlow(queue, f->jobs, max_attempts);
  });
}

int echomq_flow_info_get(echomq_client* c, const char* queue, uint64_t id, echomq_flow_info** out) {
  return guarded(c, [&] {
    if (!out) echomq::invalid("out is NULL");
    *out = nullptr;
    auto* fi = new echomq_flow_info();
    try {
      fi->f = c->core.flowInfo(queue, id);
    } catch (...) {
      delete fi;
      throw;
    }
    *out = fi;
  });
}

void echomq_flow_info_free(echomq_flow_info* fi) { delete fi; }
int echomq_flow_info_state(const echomq_flow_info* fi) { return fi ? fi->f.state : 0; }
uint64_t echomq_flow_info_parent(const echomq_flow_info* fi) { return fi ? fi->f.parent : 0; }
int echomq_flow_info_on_fail(const echomq_flow_info* fi) { return fi ? fi->f.on_fail : 0; }
size_t echomq_flow_info_waiting(const echomq_flow_info* fi) { return fi ? fi->f.waiting : 0; }
size_t echomq_flow_info_count(const echomq_flow_info* fi) { return fi ? fi->f.children.size() : 0; }
uint64_t echomq_flow_info_child(const echomq_flow_info* fi, size_t i) {
  const echomq::FlowChild* c = childAt(fi, i);
  return c ? c->id : 0;
}
int echomq_flow_info_child_state(const echomq_flow_info* fi, size_t i) {
  const echomq::FlowChild* c = childAt(fi, i);
  return c ? c->state : 0;
}
uint64_t echomq_flow_info_child_attempts(const echomq_flow_info* fi, size_t i) {
  const echomq::FlowChild* c = childAt(fi, i);
  return c ? c->attempts : 0;
}
int64_t echomq_flow_info_child_finished_at(const echomq_flow_info* fi, size_t i) {
  const echomq::FlowChild* c = childAt(fi, i);
  return c ? c->finished_at_ms : 0;
}
const char* echomq_flow_info_child_error(const echomq_flow_info* fi, size_t i, size_t* len) {
  const echomq::FlowChild* c = childAt(fi, i);
  return bytesOf(c ? &c->error : nullptr, len);
}
const char* echomq_flow_info_child_result(const echomq_flow_info* fi, size_t i, size_t* len) {
  const echomq::FlowChild* c = childAt(fi, i);
  return bytesOf(c ? &c->result : nullptr, len);
}

int echomq_delete_flow(echomq_client* c, const char* queue, uint64_t id, uint64_t* deleted) {
  return guarded(c, [&] {
    uint64_t n = c->core.deleteFlow(queue, id);
    if (deleted) *deleted = n;
  });
}
