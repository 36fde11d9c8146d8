// rate.cpp — what cost mode and tenants cost a claim: 100 backlogged lanes
// flat, in cost mode (quantum 1,000), inside 10 tenants of 10 lanes, and
// both, against flat, round by round, with the server CPU per job from the INFO cpu delta:
// - a claim loop on one client (echomq_claim, one job per round trip: the
//   claim script's own path; no lane is charged, the loop reports no cost);
// - a drain through the worker engine (batched claims and settlements, the
//   engine's measured charges sent in every mode).
#include "drain.hpp"

namespace bench {
namespace {

constexpr uint64_t kLanes = 100;

std::vector<Shape> shapes() {
  return {{"flat", 0, 0}, {"cost mode", 1000, 0}, {"tenants", 0, 10}, {"cost + tenants", 1000, 10}};
}

/// Every shape gets its own queue, all loaded before the first run, so the
/// runs of the shapes alternate within each round.
void claim_loop(Context &ctx, echomq_client *c) {
  const uint64_t claims = ctx.sz.ops1;
  const auto ss = shapes();
  ctx.fresh();
  std::vector<Variant> vs;
  std::vector<std::vector<double>> cpu(ss.size());
  std::vector<std::string> names, queues;
  for (size_t k = 0; k < ss.size(); ++k) {
    const std::string q = ctx.queue + ".rate." + std::to_string(k);
    queues.push_back(q);
    // Deep enough that no lane runs dry: every claim takes the same path.
    fill(c, q, ss[k], kLanes, kLanes * (claims * ctx.sz.runs / kLanes + 2));
    names.push_back("server CPU/claim, " + ss[k].name);
    vs.push_back({"rate", "claim loop, " + ss[k].name, [&, c, q, k, claims](int) {
                    double us = 0;
                    double r = claim_rate(ctx, c, q, claims, &us);
                    cpu[k].push_back(us);
                    return r;
                  }});
  }
  ctx.rounds(1, "jobs/s", vs, 0, "flat");
  add_paired(ctx, "rate", names, cpu, "us", "flat");
  for (const auto &q : queues) ctx.checkpoint("rate", q);
}

void engine_drain(Context &ctx, echomq_client *c) {
  const uint64_t jobs = ctx.sz.ops8;
  const auto ss = shapes();
  std::vector<Variant> vs;
  std::vector<std::vector<double>> cpu(ss.size());
  std::vector<std::string> names;
  for (size_t k = 0; k < ss.size(); ++k) {
    names.push_back("server CPU/job, engine drain, " + ss[k].name);
    vs.push_back({"rate", "engine drain, " + ss[k].name, [&, c, k, jobs](int) {
                    double us = 0;
                    double r = drain_rate(ctx, c, ss[k], jobs, &us);
                    cpu[k].push_back(us);
                    return r;
                  }});
  }
  ctx.rounds(1, "jobs/s", vs, 0, "flat");
  add_paired(ctx, "rate", names, cpu, "us", "flat");
  ctx.checkpoint("rate");
}

}  // namespace

void run_rate(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  claim_loop(ctx, c.get());
  engine_drain(ctx, c.get());
}

}  // namespace bench
