// drain.cpp — see drain.hpp.
#include "drain.hpp"

#include <algorithm>

namespace bench {
namespace {

constexpr int64_t kLease = 60000;
constexpr uint64_t kChunk = 10000;  // jobs per enqueue call: short scripts, fast loads

}  // namespace

std::string shape_lane(const Shape &s, uint64_t i) {
  if (s.tenants == 0) return lane_name(i);
  return "t" + std::to_string(i % s.tenants) + "/" + lane_name(i);
}

bool fill_named(echomq_client *c, const std::string &q, const std::vector<std::string> &names,
                const std::vector<uint64_t> &jobs) {
  Batch b(echomq_batch_create());
  if (!b) return ok(ECHOMQ_ENOMEM, nullptr, "batch_create");
  std::vector<uint64_t> left = jobs;
  uint64_t total = 0;
  for (auto n : jobs) total += n;
  // Round-robin over the lanes that still have jobs to add, so every lane
  // joins the ring early and in lane order.
  for (size_t k = 0; total > 0; k = (k + 1) % names.size()) {
    if (left[k] == 0) continue;
    --left[k];
    --total;
    if (!ok(echomq_batch_add(b.get(), names[k].c_str(), "", 0), nullptr, "batch_add")) return false;
    if (echomq_batch_count(b.get()) == kChunk || total == 0) {
      if (!ok(echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr), c, "enqueue_batch"))
        return false;
      echomq_batch_clear(b.get());
    }
  }
  return true;
}

bool fill(echomq_client *c, const std::string &q, const Shape &s, uint64_t lanes, uint64_t jobs) {
  if (s.quantum && !ok(echomq_set_cost_mode(c, q.c_str(), s.quantum), c, "set_cost_mode"))
    return false;
  Batch b(echomq_batch_create());
  if (!b) return ok(ECHOMQ_ENOMEM, nullptr, "batch_create");
  for (uint64_t k = 0; k < jobs;) {
    echomq_batch_clear(b.get());
    for (uint64_t end = std::min(jobs, k + kChunk); k < end; ++k)
      if (!ok(echomq_batch_add(b.get(), shape_lane(s, k % lanes).c_str(), "", 0), nullptr,
              "batch_add"))
        return false;
    if (!ok(echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr), c, "enqueue_batch (fill)"))
      return false;
  }
  return true;
}

echomq::WorkerPtr engine(const std::string &url, const std::string &q, unsigned slots) {
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = slots;
  echomq_worker *w = nullptr;
  int st = echomq_worker_new(&w, url.c_str(), q.c_str(), &o);
  if (!ok(st, nullptr, "worker_new")) return nullptr;
  echomq::WorkerPtr p(w);
  if (!ok(echomq_worker_start(w), nullptr, "worker_start")) return nullptr;
  return p;
}

double claim_rate(Context &ctx, echomq_client *c, const std::string &q, uint64_t claims,
                  double *cpu_us) {
  const double cpu0 = ctx.admin->cpu_seconds();
  const auto t0 = Clock::now();
  for (uint64_t k = 0; k < claims; ++k) {
    echomq_job *raw = nullptr;
    if (!ok(echomq_claim(c, q.c_str(), kLease, &raw), c, "claim " + q)) return 0.0;
    Job j(raw);
  }
  const double secs = seconds_since(t0);
  *cpu_us = (ctx.admin->cpu_seconds() - cpu0) / double(claims) * 1e6;
  return double(claims) / secs;
}

double drain_rate(Context &ctx, echomq_client *c, const Shape &s, uint64_t jobs, double *cpu_us) {
  ctx.fresh();
  if (!fill(c, ctx.queue, s, 100, jobs)) return 0;
  auto w = engine(ctx.url, ctx.queue, 64);
  if (!w) return 0;
  const double cpu0 = ctx.admin->cpu_seconds();
  const auto t0 = Clock::now();
  uint64_t n = 0;
  for (; n < jobs; ++n) {
    echomq_job *j = nullptr;
    if (echomq_worker_next(w.get(), 5000, &j) != ECHOMQ_OK) break;
    echomq_worker_done(w.get(), j);
    echomq_job_free(j);
  }
  echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 10000);
  const double secs = seconds_since(t0);
  if (n < jobs) errors().add("drain " + s.name + ": " + std::to_string(n) + " of " + std::to_string(jobs));
  *cpu_us = (ctx.admin->cpu_seconds() - cpu0) / double(jobs) * 1e6;
  return double(n) / secs;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

void paired_claim_cost(Context &ctx, echomq_client *c, const std::string &section, const std::string (&qs)[2],
                       const std::string (&labels)[2], uint64_t claims) {
  std::vector<std::vector<double>> cpu(2);
  std::vector<Variant> vs;
  for (size_t k = 0; k < 2; ++k) {
    vs.push_back({section, "claim loop, " + labels[k], [&, k](int) {
                    double us = 0;
                    double r = claim_rate(ctx, c, qs[k], claims, &us);
                    cpu[k].push_back(us);
                    return r;
                  }});
  }
  ctx.rounds(1, "jobs/s", vs, 0, labels[0]);
  add_paired(ctx, section, {"server CPU/claim, " + labels[0], "server CPU/claim, " + labels[1]}, cpu, "us",
             labels[0]);
}

void add_paired(Context &ctx, const std::string &section, const std::vector<std::string> &names,
                const std::vector<std::vector<double>> &runs, const std::string &unit,
                const std::string &ratio_to) {
  std::vector<Figure> figs(names.size());
  for (size_t k = 0; k < names.size(); ++k) {
    figs[k].section = section;
    figs[k].name = names[k];
    figs[k].unit = unit;
    figs[k].runs = runs[k];
    figs[k].value = median(runs[k]);
    figs[k].ratio = k == 0 ? 1.0 : paired_ratio(figs[k], figs[0]);
    figs[k].ratio_to = ratio_to;
  }
  for (auto &f : figs) ctx.out->add(f);
}

}  // namespace bench
