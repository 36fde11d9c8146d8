// rounds.cpp — what each round of the demo is: its producers, its modes,
// how a producer's jobs are named into lanes, and its "at a glance" lines.
#include "demo.hpp"

#include <algorithm>
#include <cstdio>

namespace demo {

const char *mode_title(Mode m) {
  switch (m) {
    case Mode::fifo: return "fifo";
    case Mode::lanes: return "lanes";
    case Mode::weighted: return "weighted";
    case Mode::count_fair: return "count-fair";
    case Mode::cost_fair: return "cost-fair";
    case Mode::flat: return "flat";
    case Mode::tenants: return "tenants";
  }
  return "?";
}

const char *round_title(Round r) {
  switch (r) {
    case Round::noisy: return "noisy";
    case Round::costs: return "costs";
    case Round::tenants: return "tenants";
  }
  return "?";
}

std::vector<Mode> round_modes(Round r) {
  switch (r) {
    case Round::noisy: return {Mode::fifo, Mode::lanes, Mode::weighted};
    case Round::costs: return {Mode::count_fair, Mode::cost_fair};
    case Round::tenants: return {Mode::flat, Mode::tenants};
  }
  return {};
}

bool backlogged_round(Round r) { return r != Round::noisy; }

std::vector<Producer> make_producers(const Config &cfg, Round round) {
  std::vector<Producer> ps;
  const int n = cfg.quiet_producers;
  switch (round) {
    case Round::noisy:
      ps.push_back({"heavy", cfg.heavy_jobs, 1, true, 1, 1});
      for (int i = 1; i <= n; ++i)
        ps.push_back({"q" + std::to_string(i), cfg.quiet_jobs, i == 1 ? cfg.paid_weight : 1u,
                      false, 1, 1});
      break;
    case Round::costs:
      ps.push_back({"heavy", cfg.cost_jobs, 1, true, cfg.cost_factor, 1});
      for (int i = 1; i <= n; ++i) ps.push_back({"q" + std::to_string(i), cfg.cost_jobs, 1, false, 1, 1});
      break;
    case Round::tenants:
      ps.push_back({"big", cfg.tenant_lanes * cfg.tenant_jobs, 1, true, 1, cfg.tenant_lanes});
      for (int i = 1; i <= n; ++i)
        ps.push_back({"t" + std::to_string(i), cfg.tenant_jobs, 1, false, 1, 1});
      break;
  }
  return ps;
}

std::string lane_of(const Producer &p, Mode mode, int k) {
  if (mode == Mode::fifo) return "all";
  // The same lanes either way; only the '/' makes them lanes of a tenant.
  if (mode == Mode::flat) return p.name + "-u" + std::to_string(k % p.lanes);
  if (mode == Mode::tenants) return p.name + "/u" + std::to_string(k % p.lanes);
  return p.name;
}

double share_unit(const Served &s, const Producer &p, Mode mode) {
  if (mode == Mode::weighted) return 1.0 / p.weight;
  // The worker time actually used: a short sleep overshoots more, in
  // proportion, than a long one, and cost mode charges what was measured.
  if (mode == Mode::count_fair || mode == Mode::cost_fair) return double(s.work_us);
  return 1.0;
}

std::vector<double> backlogged_shares(const ModeResult &r, const std::vector<Producer> &producers) {
  std::vector<int> left(producers.size());
  for (size_t p = 0; p < producers.size(); ++p) left[p] = producers[p].jobs;
  std::vector<double> got(producers.size(), 0);
  double all = 0;
  for (const auto &s : r.served) {
    const Producer &p = producers[s.producer];
    const double u = r.mode == Mode::weighted ? 1.0 : share_unit(s, p, r.mode);
    got[s.producer] += u;
    all += u;
    if (--left[s.producer] == 0) break;  // the first producer ran dry
  }
  for (auto &g : got) g = all > 0 ? 100.0 * g / all : 0;
  return got;
}

namespace {

double median_wait(const std::vector<ProducerStats> &st, size_t from) {
  std::vector<double> v;
  for (size_t i = from; i < st.size(); ++i) v.push_back(st[i].median_wait_ms);
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string jain_text(double j) {
  if (j < 0) return "n/a";
  char b[16];
  std::snprintf(b, sizeof b, "%.3f", j);
  return b;
}

}  // namespace

void print_glance(const RoundResult &rr) {
  const auto &ps = rr.producers;
  const int quiet = int(ps.size()) - 1;
  switch (rr.round) {
    case Round::noisy:
      std::printf("\nAt a glance: the quiet producers' median wait (%d jobs between them)\n",
                  quiet * (ps.size() > 1 ? ps[1].jobs : 0));
      break;
    case Round::costs:
      std::printf("\nAt a glance: heavy's jobs take %dx the work; its share of the worker time "
                  "while all ten were backlogged (fair: %.0f%%)\n",
                  ps[0].work, 100.0 / double(ps.size()));
      break;
    case Round::tenants:
      std::printf("\nAt a glance: big spreads its jobs over %d lanes; its share of the claims "
                  "while all were backlogged (fair: %.0f%%)\n",
                  ps[0].lanes, 100.0 / double(ps.size()));
      break;
  }
  for (const auto &r : rr.modes) {
    auto st = producer_stats(r, ps.size());
    const std::string j = jain_text(jain_index(r, ps));
    if (rr.round == Round::noisy) {
      std::printf("  %-10s quiet %7.1f ms   heavy %7.1f ms   q1 %7.1f ms   Jain %s\n",
                  mode_title(r.mode), median_wait(st, 1), st[0].median_wait_ms,
                  st.size() > 1 ? st[1].median_wait_ms : 0.0, j.c_str());
    } else {
      const auto share = backlogged_shares(r, ps);
      std::printf("  %-10s %s %5.1f%%   the others' median wait %7.1f ms   Jain %s\n",
                  mode_title(r.mode), ps[0].name.c_str(), share[0], median_wait(st, 1),
                  j.c_str());
    }
  }
}

}  // namespace demo
