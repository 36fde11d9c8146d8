// drain.hpp — what the mode comparisons share (sections cost, rate and
// tenants): lanes named flat or inside tenants, loaded in batches, drained by
// a claim loop or the worker engine, with the server's CPU per job taken
// from the INFO cpu delta around the timed part.
#pragma once

#include "common.hpp"
#include "sections.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

/// How a queue of a comparison is set up.
struct Shape {
  std::string name;      // "flat", "cost mode", "tenants", ...
  uint64_t quantum = 0;  // cost mode's quantum; 0 = count mode
  uint64_t tenants = 0;  // 0 = plain lanes; else lane i is "t<i % tenants>/l<i>"
};

/// The name of lane i of a queue of this shape.
std::string shape_lane(const Shape &s, uint64_t i);

/// Sets the shape's mode and enqueues `jobs` empty jobs round-robin over
/// `lanes` lanes, 10,000 per call. False after an error (logged).
bool fill(echomq_client *c, const std::string &q, const Shape &s, uint64_t lanes, uint64_t jobs);

/// Enqueues jobs[k] jobs on lane names[k] for every k, interleaved
/// round-robin, 10,000 per call. False after an error (logged).
bool fill_named(echomq_client *c, const std::string &q, const std::vector<std::string> &names,
                const std::vector<uint64_t> &jobs);

/// A started worker engine with `slots` slots, or empty (error logged).
echomq::WorkerPtr engine(const std::string &url, const std::string &q, unsigned slots);

/// Jobs/s of `claims` echomq_claim calls on one client (leases left held);
/// *cpu_us gets the server CPU µs per claim.
double claim_rate(Context &ctx, echomq_client *c, const std::string &q, uint64_t claims,
                  double *cpu_us);

/// Jobs/s of draining `jobs` jobs over 100 lanes of this shape (a fresh
/// server, loaded untimed) through one engine of 64 slots and a no-op
/// handler on one host thread; *cpu_us gets the server CPU µs per job.
double drain_rate(Context &ctx, echomq_client *c, const Shape &s, uint64_t jobs, double *cpu_us);

/// Adds one figure per name: the median of runs[k] and, for k > 0, the
/// median per-round ratio to runs[0] (the runs of one ctx.rounds call, so
/// round r of every list was measured back to back).
/// The p-quantile (0..1) of v, -1 when empty.
double percentile(std::vector<double> v, double p);

/// A claim loop on queue qs[0] against the same on qs[1] (each filled, set
/// up by the caller), `claims` a round: jobs/s ("claim loop, <label>") and
/// the server CPU per claim ("server CPU/claim, <label>"), with the ratios to
/// labels[0].
void paired_claim_cost(Context &ctx, echomq_client *c, const std::string &section, const std::string (&qs)[2],
                       const std::string (&labels)[2], uint64_t claims);

void add_paired(Context &ctx, const std::string &section, const std::vector<std::string> &names,
                const std::vector<std::vector<double>> &runs, const std::string &unit,
                const std::string &ratio_to);

}  // namespace bench
