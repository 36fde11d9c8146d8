// The flow calls, routed (cpp/flows.cpp). A sharded queue keeps a flow on
// one shard, the shard of its first root's lane (a tenant's lanes: the
// tenant's shard), so every script stays single-slot and a parent's count
// lives beside its children; ids carry that shard as every id does.
#include "router.hpp"
#include "router_impl.hpp"

namespace echomq {

std::vector<uint64_t> Router::enqueueFlow(const char* queue, const std::vector<FlowJob>& jobs,
                                          uint32_t max_attempts) {
  return route(queue, [&] { return seed_.enqueueFlow(queue, jobs, max_attempts); }, [&](Shards& s) {
    std::vector<size_t> parent = flowRows(queue, jobs, opts_.max_payload);  // before any I/O
    size_t root = 0;
    while (parent[root] != 0) ++root;  // flowRows: no cycle, so a root exists
    const std::string& lane = jobs[root].group;
    size_t i = shardOfGroup(lane.data(), lane.size(), s.size());
    // The shard queue's name is not the flow's: its jobs name the flow's queue.
    std::vector<FlowJob> local = jobs;
    for (FlowJob& j : local) j.queue.clear();
    std::vector<uint64_t> ids =
        onShard(s, i, [&](Client& c, const char* q) { return c.enqueueFlow(q, local, max_attempts); });
    for (uint64_t& id : ids) id = toGlobal(id, i, s.size());
    return ids;
  });
}

FlowInfo Router::flowInfo(const char* queue, uint64_t id) {
  return route(queue, [&] { return seed_.flowInfo(queue, id); }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      FlowInfo f = onShard(s, i, [&](Client& c, const char* q) { return c.flowInfo(q, localId(id, s.size())); });
      if (f.parent != 0) f.parent = toGlobal(f.parent, i, s.size());
      for (FlowChild& c : f.children) c.id = toGlobal(c.id, i, s.size());
      return f;
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
  });
}

uint64_t Router::deleteFlow(const char* queue, uint64_t id) {
  return route(queue, [&] { return seed_.deleteFlow(queue, id); }, [&](Shards& s) {
    size_t i = idShard(s, id);
    try {
      return onShard(s, i, [&](Client& c, const char* q) { return c.deleteFlow(q, localId(id, s.size())); });
    } catch (const Error& e) {
      rethrowForJob(e, s, id);
    }
  });
}

}  // namespace echomq
