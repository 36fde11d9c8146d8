// fairness.cpp — fairness at scale, measured on a real drain:
// - 100 lanes, one holding 90% of the jobs: at which completion position
//   each small lane's last job finishes, under FIFO (one lane) and lanes;
// - weights 1..5 over 100 backlogged lanes: the worst deviation of any
//   lane's served count from its weight over every window of one ring turn.
// One client, so the completion order is the server's service order.
#include "common.hpp"
#include "sections.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace bench {
namespace {

constexpr int64_t kLease = 60000;
constexpr int kLanes = 100;

/// Payload = the lane index, so FIFO (one shared lane) still tells who is who.
std::string tag(int lane) { return std::to_string(lane); }

int lane_of(const echomq_job *j) { return std::atoi(echomq_job_payload(j, nullptr)); }

/// Enqueues the skewed load in its arrival order; `fifo` puts every job on
/// one lane.
bool load_skewed(echomq_client *c, const std::string &q, const std::vector<int> &order,
                 bool fifo) {
  Batch b(echomq_batch_create());
  if (!b) return false;
  for (size_t k = 0; k < order.size();) {
    echomq_batch_clear(b.get());
    for (size_t end = std::min(order.size(), k + 10000); k < end; ++k) {
      std::string lane = fifo ? std::string("all") : lane_name(order[k]);
      std::string p = tag(order[k]);
      if (!ok(echomq_batch_add(b.get(), lane.c_str(), p.data(), p.size()), nullptr, "batch_add"))
        return false;
    }
    if (!ok(echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr), c, "enqueue_batch"))
      return false;
  }
  return true;
}

/// Drains with claim + fused ack_claim until every small lane is done;
/// returns the 1-based completion position of each small lane's last job.
std::vector<double> drain_positions(echomq_client *c, const std::string &q,
                                    const std::vector<uint64_t> &counts) {
  std::vector<uint64_t> left = counts;
  uint64_t small_left = 0;
  for (size_t i = 1; i < counts.size(); ++i) small_left += counts[i];
  std::vector<double> last(counts.size(), 0);
  uint64_t pos = 0;
  echomq_job *raw = nullptr;
  int st = echomq_claim(c, q.c_str(), kLease, &raw);
  Job cur(raw);
  while (ok(st, c, "claim", true) && st == ECHOMQ_OK && small_left > 0) {
    int lane = lane_of(cur.get());
    ++pos;
    if (lane > 0 && lane < int(counts.size()) && left[lane] > 0) {
      if (--left[lane] == 0) last[lane] = double(pos);
      --small_left;
    }
    raw = nullptr;
    st = echomq_ack_claim(c, q.c_str(), echomq_job_id(cur.get()), echomq_job_token(cur.get()),
                          kLease, &raw);
    cur.reset(raw);
  }
  if (small_left) errors().add("fairness: drain ended with small-lane jobs left");
  return std::vector<double>(last.begin() + 1, last.end());
}

void skewed(Context &ctx, echomq_client *c) {
  const uint64_t total = ctx.sz.fair_jobs, big = total * 9 / 10;
  std::vector<uint64_t> counts(kLanes, (total - big) / (kLanes - 1));
  counts[0] = big;
  for (uint64_t i = 1, rest = (total - big) % (kLanes - 1); rest > 0; ++i, --rest) counts[i]++;
  const std::vector<int> order = interleave(counts);

  for (bool fifo : {true, false}) {
    const std::string mode = fifo ? "FIFO" : "lanes";
    std::vector<double> med, worst;
    ctx.measure("fairness", "last small-lane job, median pos, " + mode, 0, "position",
                [&](int) {
      ctx.fresh();
      if (!load_skewed(c, ctx.queue, order, fifo)) return 0.0;
      std::vector<double> pos = drain_positions(c, ctx.queue, counts);
      worst.push_back(*std::max_element(pos.begin(), pos.end()));
      return median(pos);
    });
    Figure &m = ctx.out->figures.back();
    m.ratio = m.value / double(total);
    m.ratio_to = "of " + std::to_string(total) + " jobs";
    Figure w;
    w.section = "fairness";
    w.name = "last small-lane job, worst pos, " + mode;
    w.value = median(worst);
    w.unit = "position";
    w.ratio = w.value / double(total);
    w.ratio_to = m.ratio_to;
    w.runs = worst;
    ctx.out->add(w);
  }
}

/// Worst |served - share| of any lane over every window of `turn` services,
/// and the worst spread of served/weight between two lanes in a window.
void window_deviation(const std::vector<int> &seq, const std::vector<uint32_t> &w, double *dev,
                      double *spread) {
  uint64_t turn = 0;
  for (auto x : w) turn += x;
  *dev = 0;
  *spread = 0;
  if (seq.size() < turn) return;
  std::vector<int64_t> count(w.size(), 0);
  for (uint64_t i = 0; i < turn; ++i) count[seq[i]]++;
  for (uint64_t s = 0;; ++s) {
    double lo = 1e18, hi = -1e18;
    for (size_t l = 0; l < w.size(); ++l) {
      *dev = std::max(*dev, std::fabs(double(count[l]) - double(w[l])));
      double r = double(count[l]) / double(w[l]);
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    *spread = std::max(*spread, hi - lo);
    if (s + turn >= seq.size()) break;
    count[seq[s]]--;
    count[seq[s + turn]]++;
  }
}

/// Drains `jobs` services with wclaim (weighted) or claim, or with batches
/// of `batch` turns (claim_batch) when batch > 0, recording lanes.
std::vector<int> service_order(echomq_client *c, const std::string &q, uint64_t jobs,
                               bool weighted, uint32_t max_weight, uint32_t batch) {
  std::vector<int> seq;
  while (seq.size() < jobs) {
    if (batch > 0) {
      echomq_job_list *raw = nullptr;
      if (!ok(echomq_claim_batch(c, q.c_str(), kLease, batch, weighted ? 1 : 0, &raw), c, "claim_batch")) break;
      JobList l(raw);
      for (size_t i = 0; i < echomq_job_list_count(l.get()); ++i)
        seq.push_back(lane_of(echomq_job_list_at(l.get(), i)));
    } else if (weighted) {
      echomq_job_list *raw = nullptr;
      if (!ok(echomq_wclaim(c, q.c_str(), kLease, max_weight, &raw), c, "wclaim")) break;
      JobList l(raw);
      for (size_t i = 0; i < echomq_job_list_count(l.get()); ++i)
        seq.push_back(lane_of(echomq_job_list_at(l.get(), i)));
    } else {
      echomq_job *raw = nullptr;
      if (!ok(echomq_claim(c, q.c_str(), kLease, &raw), c, "claim")) break;
      Job j(raw);
      seq.push_back(lane_of(j.get()));
    }
  }
  seq.resize(std::min<size_t>(seq.size(), jobs));
  return seq;
}

void weighted_share(Context &ctx, echomq_client *c) {
  const int turns = ctx.sz.weighted_turns;
  for (int mode = 0; mode < 4; ++mode) {
    const bool weighted = mode % 2 == 1;
    const uint32_t batch = mode >= 2 ? 32 : 0;
    std::vector<uint32_t> w(kLanes, 1);
    if (weighted)
      for (int i = 0; i < kLanes; ++i) w[i] = 1 + i % 5;
    uint64_t turn = 0;
    for (auto x : w) turn += x;
    std::vector<double> spreads;
    const std::string what = std::string(weighted ? "wclaim w=1..5" : "claim w=1") +
                             (batch ? ", batches of 32" : "");
    ctx.measure("fairness", "worst |served - w| per turn, " + what, 0, "jobs", [&](int) {
      ctx.fresh();
      // Lanes stay backlogged through the measured turns (two spare turns).
      Batch b(echomq_batch_create());
      for (int i = 0; i < kLanes; ++i) {
        if (weighted)
          ok(echomq_set_weight(c, ctx.queue.c_str(), lane_name(i).c_str(), w[i]), c,
             "set_weight");
        for (uint64_t k = 0; k < uint64_t(turns + 2) * w[i]; ++k) {
          std::string p = tag(i);
          echomq_batch_add(b.get(), lane_name(i).c_str(), p.data(), p.size());
        }
      }
      ok(echomq_enqueue_batch(c, ctx.queue.c_str(), b.get(), nullptr), c, "enqueue_batch");
      std::vector<int> seq = service_order(c, ctx.queue, turn * turns, weighted, 5, batch);
      double dev = 0, spread = 0;
      window_deviation(seq, w, &dev, &spread);
      spreads.push_back(spread);
      return dev;
    });
    Figure s;
    s.section = "fairness";
    s.name = "worst |s_i/w_i - s_j/w_j|, " + what;
    s.value = median(spreads);
    s.unit = "jobs";
    s.runs = spreads;
    ctx.out->add(s);
  }
}

}  // namespace

void run_fairness(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  skewed(ctx, c.get());
  weighted_share(ctx, c.get());
  ctx.checkpoint("fairness");
}

}  // namespace bench
