// report.cpp — producers, per-producer figures, Jain's index and the
// terminal charts of the demo.
#include "demo.hpp"

#include <algorithm>
#include <cstdio>

namespace demo {

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
  if (p.work != 1) s += " x" + std::to_string(p.work);
  if (p.lanes != 1) s += " " + std::to_string(p.lanes) + "L";
  return s;
}

const char *describe(Mode m) {
  switch (m) {
    case Mode::fifo: return "one shared FIFO lane: every job on one lane";
    case Mode::lanes: return "fair lanes, claim: one job per lane per turn";
    case Mode::weighted: return "fair lanes, wclaim: weight jobs per lane per turn";
    case Mode::count_fair: return "worker engine, count mode: one job per lane per turn";
    case Mode::cost_fair: return "worker engine, cost mode: lanes share the measured handler time";
    case Mode::flat: return "flat lanes: big-u0..u99 and t1-u0..: a ring of every lane";
    case Mode::tenants: return "big/u0..u99 and t1/u0..: a ring of tenants, each over its lanes";
  }
  return "?";
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

double jain_index(const ModeResult &r, const std::vector<Producer> &producers) {
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
    std::vector<bool> backlogged(n, false);
    std::vector<double> units(n, 0);
    for (size_t i = k; i < k + win; ++i)
      units[r.served[i].producer] += share_unit(r.served[i], producers[r.served[i].producer], r.mode);
    // Backlogged through the window: submitted before it began and still not
    // served when it ended.
    for (size_t i = k + win; i < total; ++i)
      if (r.served[i].submit_us <= t_start) backlogged[r.served[i].producer] = true;
    double sx = 0, sxx = 0;
    int m = 0;
    for (size_t p = 0; p < n; ++p) {
      if (!backlogged[p]) continue;
      double x = units[p];
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

void print_mode(const ModeResult &r, const std::vector<Producer> &producers, Round round,
                int64_t axis_us, bool ascii) {
  static const char *blocks[] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                 "\u2585", "\u2586", "\u2587", "\u2588"};
  static const char *plain[] = {" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"};
  const int levels = ascii ? 9 : 8;  // highest index into the table
  const int bins = 56;
  const int64_t span = std::max<int64_t>(axis_us, 1);

  std::printf("\n== %s: %s ==  (%s)\n", round_title(round), mode_title(r.mode), describe(r.mode));
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
  // The share while all were backlogged means something only when all
  // submit at once.
  const bool shares = backlogged_round(round);
  const auto share = backlogged_shares(r, producers);
  std::printf("  %-10s %6s %12s %12s%s\n", "producer", "jobs", "median wait", "worst wait",
              !shares ? "" : round == Round::costs ? "  share of work" : "  share of claims");
  for (size_t p = 0; p < producers.size(); ++p) {
    std::printf("  %-10s %6d %9.1f ms %9.1f ms", label(producers[p], r.mode).c_str(),
                st[p].served, st[p].median_wait_ms, st[p].worst_wait_ms);
    if (shares) std::printf("  %12.1f %%", share[p]);
    std::printf("\n");
  }
  double j = jain_index(r, producers);
  if (j < 0)
    std::printf("  Jain's fairness index: n/a (never two producers backlogged at once)\n");
  else
    std::printf("  Jain's fairness index: %.3f%s  (1 = fair; %zu producers)\n", j,
                r.mode == Mode::weighted                                ? " of served/weight"
                : r.mode == Mode::count_fair || r.mode == Mode::cost_fair ? " of work served"
                                                                          : "",
                producers.size());
}

}  // namespace demo
