// memory.cpp — bytes of Valkey memory per pending job, from INFO memory
// (used_memory) before and after enqueueing many jobs over 100 lanes.
#include "common.hpp"
#include "sections.hpp"

namespace bench {

void run_memory(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  const uint64_t n = ctx.sz.memory_jobs;
  for (size_t payload : {size_t(0), size_t(100)}) {
    Sizes saved = ctx.sz;
    ctx.sz.runs = ctx.sz.memory_runs;
    std::string name = "per pending job, " + std::to_string(payload) + "-byte payload";
    ctx.measure("memory", name, 0, "bytes/job", [&](int) {
      ctx.fresh();
      int64_t before = ctx.admin->used_memory();
      if (!load(c.get(), ctx.queue, 100, n, payload)) return 0.0;
      int64_t after = ctx.admin->used_memory();
      if (before < 0 || after < 0) errors().add("memory: INFO memory failed");
      if (ctx.check) {
        echomq_queue_stats s = stats(c.get(), ctx.queue);
        if (s.pending != n) errors().add("memory: pending " + std::to_string(s.pending));
      }
      return double(after - before) / double(n);
    });
    ctx.sz = saved;
    ctx.checkpoint("memory");
  }
}

}  // namespace bench
