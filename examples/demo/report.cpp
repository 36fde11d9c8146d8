// report.cpp — producers, per-producer figures, Jain's index and the
// terminal charts of the demo.
#include "demo.hpp"

#include <algorithm>
#include <cstdio>

namespace demo {

const char *mode_title(Mode m) {
  switch (m) {
    case Mode::fifo: return "fifo";
    case Mode::lanes: return "lanes";
    case Mode::weighted: return "weighted";
  }
  return "?";
}

std::vector<Producer> make_producers(const Config &cfg) {
  std::vector<Producer> ps;
  ps.push_back({"heavy", cfg.heavy_jobs, 1, true});
  for (int i = 1; i <= cfg.quiet_producers; ++i)
    ps.push_back({"q" + std::to_string(i), cfg.quiet_jobs, i == 1 ? cfg.paid_weight : 1u, false});
  return ps;
}

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string label(const Producer &p, Mode m) {
  std::string s = p.name;
  if (m == Mode::weighted && p.weight != 1) s += " w" + std::to_string(p.weight);
  return s;
}

}  // namespace

std::vector<ProducerStats> producer_stats(const ModeResult &r, size_t producers) {
  std::vector<std::vector<double>> waits(producers);
  for (const auto &s : r.served)
    if (s.producer >= 0 && size_t(s.producer) < producers)
      waits[s.producer].push_back((s.claim_us - s.submit_us) / 1000.0);
  std::vector<ProducerStats> out(producers);
  for (size_t i = 0; i < producers; ++i) {
    out[i].served = int(waits[i].size());
    out[i].median_wait_ms = median(waits[i]);
    out[i].worst_wait_ms = waits[i].empty() ? 0 : *std::max_element(waits[i].begin(), waits[i].end());
  }
  return out;
}

double jain_index(const ModeResult &r, const std::vector<Producer> &producers, bool weighted) {
  const size_t n = producers.size();
  const size_t total = r.served.size();
  // A window of five services per producer: several ring turns, so a fair
  // schedule scores close to 1 and FIFO scores close to 1/n.
  const size_t win = 5 * n;
  if (total < win) return -1;

  double sum = 0;
  int windows = 0;
  for (size_t k = 0; k + win <= total; k += win) {
    const int64_t t_start = r.served[k].claim_us;
    std::vector<int> count(n, 0);
    std::vector<bool> backlogged(n, false);
    for (size_t i = k; i < k + win; ++i) count[r.served[i].producer]++;
    // Backlogged through the window: submitted before it began and still not
    // served when it ended.
    for (size_t i = k + win; i < total; ++i)
      if (r.served[i].submit_us <= t_start) backlogged[r.served[i].producer] = true;
    double sx = 0, sxx = 0;
    int m = 0;
    for (size_t p = 0; p < n; ++p) {
      if (!backlogged[p]) continue;
      double x = count[p] / double(weighted ? producers[p].weight : 1);
      sx += x;
      sxx += x * x;
      ++m;
    }
    if (m < 2) continue;
    sum += sxx > 0 ? (sx * sx) / (m * sxx) : 0;
    ++windows;
  }
  return windows ? sum / windows : -1;
}

void print_mode(const ModeResult &r, const std::vector<Producer> &producers, int64_t axis_us,
                bool ascii) {
  static const char *blocks[] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                 "\u2585", "\u2586", "\u2587", "\u2588"};
  static const char *plain[] = {" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"};
  const int levels = ascii ? 9 : 8;  // highest index into the table
  const int bins = 56;
  const int64_t span = std::max<int64_t>(axis_us, 1);

  std::printf("\n== %s ==  (%s)\n", mode_title(r.mode),
              r.mode == Mode::fifo    ? "one shared FIFO lane: every job on one lane"
              : r.mode == Mode::lanes ? "fair lanes, claim: one job per lane per turn"
                                      : "fair lanes, wclaim: weight jobs per lane per turn");
  std::vector<std::vector<int>> grid(producers.size(), std::vector<int>(bins, 0));
  for (const auto &s : r.served) {
    int b = int(std::min<int64_t>(bins - 1, s.claim_us * bins / span));
    grid[s.producer][b]++;
  }
  for (size_t p = 0; p < producers.size(); ++p) {
    int mx = *std::max_element(grid[p].begin(), grid[p].end());
    std::string row;
    for (int b = 0; b < bins; ++b) {
      int c = grid[p][b];
      int lvl = c == 0 ? 0 : std::max(1, (c * levels + mx - 1) / std::max(mx, 1));
      row += ascii ? plain[lvl] : blocks[lvl];
    }
    std::printf("%-10s |%s|\n", label(producers[p], r.mode).c_str(), row.c_str());
  }
  std::printf("%-10s  0 ms%*s%.0f ms\n", "", bins - 8, "", axis_us / 1000.0);

  auto st = producer_stats(r, producers.size());
  std::printf("  %-10s %6s %12s %12s\n", "producer", "jobs", "median wait", "worst wait");
  for (size_t p = 0; p < producers.size(); ++p)
    std::printf("  %-10s %6d %9.1f ms %9.1f ms\n", label(producers[p], r.mode).c_str(),
                st[p].served, st[p].median_wait_ms, st[p].worst_wait_ms);
  double j = jain_index(r, producers, r.mode == Mode::weighted);
  if (j < 0)
    std::printf("  Jain's fairness index: n/a (never two producers backlogged at once)\n");
  else
    std::printf("  Jain's fairness index: %.3f%s  (1 = fair; %zu producers)\n", j,
                r.mode == Mode::weighted ? " of served/weight" : "", producers.size());
}

}  // namespace demo
