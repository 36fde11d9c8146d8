// tenants.cpp — lanes inside tenants (docs/architecture.md, "Tenants"):
// - the Sybil workload: tenant A spreads its backlog over 100 lanes, tenant
//   B has 1, all backlogged; each tenant's share of the claims, flat (the
//   same jobs on lanes named "A-u0".."A-u99" and "B-u0": a ring of 101
//   lanes) against tenants ("A/u0".., "B/u0": an outer ring of 2);
// - scale: a claim with 1,000,000 lanes under 10,000 tenants (and with the
//   same lanes flat) against 10 lanes, with the server CPU per claim.
#include "drain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace bench {
namespace {

constexpr int64_t kLease = 60000;
constexpr uint32_t kSybilBatch = 202;  // two turns of the flat ring per call

/// Claims `claims` jobs from the Sybil queue; A's share (%) of them, and in
/// *worst the worst |A - B| over every two successive claims (one turn of
/// the outer ring when the lanes are inside tenants: 0 = exactly 1 each).
double sybil(Context &ctx, echomq_client *c, bool tenants, uint64_t claims, double *worst) {
  ctx.fresh();
  const std::string sep = tenants ? "/" : "-";
  std::vector<std::string> names;
  std::vector<uint64_t> jobs;
  for (int i = 0; i < 100; ++i) {
    names.push_back("A" + sep + "u" + std::to_string(i));
    jobs.push_back(claims / 100 + 2);  // A's lanes and B stay backlogged in both modes
  }
  names.push_back("B" + sep + "u0");
  jobs.push_back(claims / 2 + 2);
  if (!fill_named(c, ctx.queue, names, jobs)) return 0;
  std::vector<int> seq;  // 1 = A, 0 = B, in service order
  while (seq.size() < claims) {
    echomq_job_list *raw = nullptr;
    uint32_t n = uint32_t(std::min<uint64_t>(kSybilBatch, claims - seq.size()));
    if (!ok(echomq_claim_batch(c, ctx.queue.c_str(), kLease, n, 0, &raw), c, "claim_batch"))
      return 0;
    JobList l(raw);
    for (size_t i = 0; i < echomq_job_list_count(l.get()); ++i)
      seq.push_back(echomq_job_group(echomq_job_list_at(l.get(), i))[0] == 'A');
  }
  double a = 0;
  *worst = 0;
  for (size_t i = 0; i < seq.size(); ++i) {
    a += seq[i];
    if (i > 0) *worst = std::max(*worst, std::fabs(double(seq[i] + seq[i - 1]) - 1.0) * 2);
  }
  return 100.0 * a / double(seq.size());
}

void sybil_rounds(Context &ctx, echomq_client *c) {
  const uint64_t claims = ctx.sz.sybil_claims;
  std::vector<std::vector<double>> worst(2);
  std::vector<Variant> vs;
  for (int t = 0; t < 2; ++t)
    vs.push_back({"tenants", std::string("Sybil: A's share of claims, ") + (t ? "tenants" : "flat"),
                  [&, c, t, claims](int) {
                    double w = 0;
                    double share = sybil(ctx, c, t == 1, claims, &w);
                    worst[t].push_back(w);
                    return share;
                  }});
  auto figs = ctx.rounds(1, "%", vs, -1, "");
  // The service order is deterministic, so --check holds it exactly: in
  // tenants mode the outer ring alternates A and B in every turn.
  if (ctx.check)
    for (size_t r = 0; r < worst[1].size(); ++r)
      if (worst[1][r] != 0 || figs[1]->runs[r] != 50.0)
        errors().add("tenants: Sybil run " + std::to_string(r) + ": A's share " +
                     std::to_string(figs[1]->runs[r]) + " %, worst |A-B| per outer turn " +
                     std::to_string(worst[1][r]) + " (want 50 % and 0)");
  for (int t = 0; t < 2; ++t) {
    Figure f;
    f.section = "tenants";
    f.name = std::string("Sybil: worst |A-B| per outer turn, ") + (t ? "tenants" : "flat");
    f.value = median(worst[t]);
    f.unit = "jobs";
    f.runs = worst[t];
    ctx.out->add(f);
  }
  ctx.checkpoint("tenants (Sybil)");
}

/// Each shape gets its own queue, all loaded before the first run, so the
/// runs of 10 lanes and of a million alternate within each round.
void scale(Context &ctx, echomq_client *c) {
  const uint64_t claims = ctx.sz.ops1, lanes = ctx.sz.tenant_lanes;
  const std::string many = count_name(lanes) + " lanes";
  struct Q {
    Shape shape;
    uint64_t lanes;
    std::string q;
  };
  const std::vector<Q> qs = {
      {{"10 lanes", 0, 0}, 10, ctx.queue + ".t10"},
      {{many + ", flat", 0, 0}, lanes, ctx.queue + ".flat"},
      {{many + " in " + count_name(ctx.sz.tenant_count) + " tenants", 0, ctx.sz.tenant_count},
       lanes, ctx.queue + ".tenants"}};
  ctx.fresh();
  std::vector<Variant> vs;
  std::vector<std::vector<double>> cpu(qs.size());
  std::vector<std::string> names;
  for (size_t k = 0; k < qs.size(); ++k) {
    const Q &x = qs[k];
    // Deep enough that no lane runs dry during the runs (at least 2 each).
    const uint64_t depth = std::max<uint64_t>(2, claims * ctx.sz.runs / x.lanes + 2);
    const int64_t m0 = ctx.admin->used_memory();
    const auto t0 = Clock::now();
    fill(c, x.q, x.shape, x.lanes, x.lanes * depth);
    const double secs = seconds_since(t0);
    if (x.lanes == lanes) {
      Figure f;
      f.section = "tenants";
      f.name = "load, " + x.shape.name;
      f.value = double(x.lanes * depth) / secs;
      f.unit = "jobs/s";
      f.runs = {f.value};
      ctx.out->add(f);
      f.name = "memory/lane (" + std::to_string(depth) + " jobs), " + x.shape.name;
      f.value = double(ctx.admin->used_memory() - m0) / double(x.lanes);
      f.unit = "bytes/lane";
      f.runs = {f.value};
      ctx.out->add(f);
    }
    names.push_back("server CPU/claim, " + x.shape.name);
    vs.push_back({"tenants", "claim, " + x.shape.name, [&, c, k, claims](int) {
                    double us = 0;
                    double r = claim_rate(ctx, c, qs[k].q, claims, &us);
                    cpu[k].push_back(us);
                    return r;
                  }});
  }
  ctx.rounds(1, "ops/s", vs, 0, "10 lanes");
  add_paired(ctx, "tenants", names, cpu, "us", "10 lanes");
  for (const auto &x : qs) ctx.checkpoint("tenants (scale)", x.q);
}

}  // namespace

void run_tenants(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  sybil_rounds(ctx, c.get());
  scale(ctx, c.get());
}

}  // namespace bench
