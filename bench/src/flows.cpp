// flows.cpp — flows (docs/operations.md "Flows"): what a flow costs the
// server, against the same jobs without links, in one run (paired rounds):
//   - enqueueing a flow of 1,000 jobs (a parent and 999 children over 100
//     lanes, one script call) against enqueue_many of 1,000 jobs;
//   - completing a child (its ack, one call each) against a plain ack, and
//     acks of 100 at a time;
//   - memory per dependency: used_memory of the flow against the plain jobs.
// Server time is the scripts' own (INFO commandstats usec, reset before the
// measured calls), so the client's side and the network are left out.
#include "common.hpp"
#include "sections.hpp"
#include "server.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace bench {
namespace {

constexpr uint64_t kJobs = ECHOMQ_FLOW_MAX;  // a parent and its children

// µs of server time in script calls since the last reset (Admin::script_usec).
double server_usec(Context &ctx) {
  double us = ctx.admin->script_usec();
  if (us < 0) errors().add("flows: INFO commandstats failed");
  return us < 0 ? 0 : us;
}

void reset_stats(Context &ctx) { ctx.admin->reset_stats(); }

std::string lane(uint64_t i) { return "L" + std::to_string(i % 100); }

// A flow of kJobs: "p" and kJobs - 1 children over 100 lanes (chain: each
// waits for the next instead). Enqueued in one call; false on error.
bool enqueue_flow(echomq_client *c, const std::string &q, bool chain) {
  std::unique_ptr<echomq_flow, decltype(&echomq_flow_free)> f(echomq_flow_create(), &echomq_flow_free);
  for (uint64_t i = 0; i < kJobs; ++i) {
    std::string name = "j" + std::to_string(i), parent = i == 0 ? "" : chain ? "j" + std::to_string(i - 1) : "j0";
    if (echomq_flow_add(f.get(), name.c_str(), parent.empty() ? nullptr : parent.c_str(), ECHOMQ_FLOW_FAIL, nullptr,
                        lane(i).c_str(), "0123456789abcdef", 16) != ECHOMQ_OK)
      return false;
  }
  return ok(echomq_enqueue_flow(c, q.c_str(), f.get(), 0), c, "enqueue_flow");
}

bool enqueue_plain(echomq_client *c, const std::string &q) {
  Batch b(echomq_batch_create());
  for (uint64_t i = 0; i < kJobs; ++i) echomq_batch_add(b.get(), lane(i).c_str(), "0123456789abcdef", 16);
  return ok(echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr), c, "enqueue_batch");
}

// µs of server time per job of the enqueue.
double enqueue_cost(Context &ctx, echomq_client *c, bool flow) {
  ctx.fresh();
  reset_stats(ctx);
  bool fine = flow ? enqueue_flow(c, ctx.queue, false) : enqueue_plain(c, ctx.queue);
  return fine ? server_usec(ctx) / double(kJobs) : 0;
}

// µs of server time per ack: every job that is ready claimed (untimed),
// then acked one by one (group 1) or 100 a call; the children's acks let
// the parent go (counted, as the last child's ack does it).
double ack_cost(Context &ctx, echomq_client *c, int kind, size_t group) {
  ctx.fresh();
  const std::string &q = ctx.queue;
  if (kind == 0 ? !enqueue_plain(c, q) : !enqueue_flow(c, q, kind == 2)) return 0;
  uint64_t acked = 0;
  double usec = 0;
  for (;;) {
    echomq_job_list *raw = nullptr;
    int st = echomq_claim_batch(c, q.c_str(), 600000, ECHOMQ_BATCH_MAX, 0, &raw);
    JobList l(raw);
    if (st == ECHOMQ_EMPTY) break;
    if (!ok(st, c, "claim_batch")) return 0;
    size_t n = echomq_job_list_count(l.get());
    std::vector<uint64_t> ids, tokens;
    for (size_t i = 0; i < n; ++i) {
      ids.push_back(echomq_job_id(echomq_job_list_at(l.get(), i)));
      tokens.push_back(echomq_job_token(echomq_job_list_at(l.get(), i)));
    }
    reset_stats(ctx);
    std::vector<int> statuses(group);
    for (size_t i = 0; i < n; i += group) {
      size_t k = std::min(group, n - i);
      if (!ok(echomq_ack_many(c, q.c_str(), &ids[i], &tokens[i], k, statuses.data(), nullptr), c, "ack_many"))
        return 0;
    }
    usec += server_usec(ctx);
    acked += n;
  }
  return acked ? usec / double(acked) : 0;
}

// Bytes of used_memory per job after the enqueue (the empty queue's first).
double memory_per_job(Context &ctx, echomq_client *c, bool flow) {
  ctx.fresh();
  int64_t before = ctx.admin->used_memory();
  bool fine = flow ? enqueue_flow(c, ctx.queue, false) : enqueue_plain(c, ctx.queue);
  int64_t after = ctx.admin->used_memory();
  return fine && before >= 0 && after >= 0 ? double(after - before) / double(kJobs) : 0;
}

}  // namespace

void run_flows(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  echomq_client *h = c.get();
  ctx.rounds(1, "us server/job",
             {{"flows", "enqueue_many of 1,000 jobs, one call", [&](int) { return enqueue_cost(ctx, h, false); }},
              {"flows", "enqueue_flow of a parent and 999 children, one call",
               [&](int) { return enqueue_cost(ctx, h, true); }}},
             0, "enqueue_many");
  for (size_t group : {size_t(1), size_t(100)}) {
    std::string per = group == 1 ? "one ack a call" : "100 acks a call";
    ctx.rounds(1, "us server/ack",
               {{"flows", "plain ack, " + per, [&, group](int) { return ack_cost(ctx, h, 0, group); }},
                {"flows", "ack of a child (999 of one parent), " + per,
                 [&, group](int) { return ack_cost(ctx, h, 1, group); }},
                {"flows", "ack of a chain step (each lets the next go), " + per,
                 [&, group](int) { return ack_cost(ctx, h, 2, group); }}},
               0, "plain ack");
  }
  auto mem = ctx.rounds(1, "bytes/job",
                        {{"flows", "memory of 1,000 plain jobs", [&](int) { return memory_per_job(ctx, h, false); }},
                         {"flows", "memory of a flow of 1,000 jobs (999 dependencies)",
                          [&](int) { return memory_per_job(ctx, h, true); }}},
                        0, "plain jobs");
  if (mem.size() == 2) {
    Figure f;
    f.section = "flows";
    f.name = "memory per dependency (flow less plain, per child)";
    f.unit = "bytes";
    f.value = (mem[1]->value - mem[0]->value) * double(kJobs) / double(kJobs - 1);
    ctx.out->add(f);
  }
  ctx.checkpoint("flows");
}

}  // namespace bench
