// main.cpp — echomq_demo: the noisy-neighbour problem, seen.
//
// Three rounds, each one workload drained several ways in turn:
// - noisy: one heavy producer floods its lane with thousands of jobs; nine
//   quiet producers submit a few each just after. One shared FIFO lane (the
//   unfair baseline), fair lanes with claim, and fair lanes with weights via
//   wclaim (q1 is a paid tenant).
// - costs: ten backlogged producers, one with 10x heavier jobs, drained by
//   the worker engine: count-fair against cost-fair (the queue's cost mode).
// - tenants: a tenant with 100 lanes against nine with one lane each: flat
//   lanes against lanes inside tenants.
// The demo prints a timeline and a table per mode and writes an SVG.
//
// Usage: echomq_demo --url valkey://127.0.0.1:6379 [--svg FILE] [options]
#include "demo.hpp"

#include <echomq/echomq.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

void usage(std::FILE *to) {
  std::fprintf(to,
               "usage: echomq_demo --url URL [--svg FILE] [--heavy N] [--quiet N]\n"
               "                   [--quiet-jobs N] [--workers N] [--handler-us N]\n"
               "                   [--paid-weight W] [--rounds LIST] [--ascii]\n"
               "  --url         Valkey server (or env ECHOMQ_URL)\n"
               "  --svg         timeline file to write (default echomq-demo.svg)\n"
               "  --heavy       jobs of the heavy producer (default 4000)\n"
               "  --quiet       quiet producers (default 9)\n"
               "  --quiet-jobs  jobs per quiet producer (default 20)\n"
               "  --workers     worker threads (default 4)\n"
               "  --handler-us  simulated work per job, microseconds (default 300)\n"
               "  --paid-weight weight of the paid tenant q1 in the weighted run (default 3)\n"
               "  --rounds      comma-separated rounds to run: noisy,costs,tenants (default all)\n"
               "  --ascii       plain ASCII charts\n");
}

bool parse_rounds(const std::string &list, std::vector<demo::Round> *out) {
  out->clear();
  size_t from = 0;
  while (from <= list.size()) {
    size_t comma = list.find(',', from);
    const std::string name = list.substr(from, comma == std::string::npos ? comma : comma - from);
    bool found = false;
    for (demo::Round r : {demo::Round::noisy, demo::Round::costs, demo::Round::tenants})
      if (name == demo::round_title(r)) {
        out->push_back(r);
        found = true;
      }
    if (!found) return false;
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return !out->empty();
}

bool parse_int(const char *s, int lo, int hi, int *out) {
  char *end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!s[0] || *end || v < lo || v > hi) return false;
  *out = int(v);
  return true;
}

/// Returns 0 on success, 2 on a usage error.
int parse_args(int argc, char **argv, demo::Config *cfg) {
  if (const char *env = std::getenv("ECHOMQ_URL")) cfg->url = env;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](void) -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    const char *v = nullptr;
    int w = 0;
    bool ok = true;
    if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--ascii") {
      cfg->ascii = true;
    } else if (a == "--url" && (v = value())) {
      cfg->url = v;
    } else if (a == "--svg" && (v = value())) {
      cfg->svg_path = v;
    } else if (a == "--heavy" && (v = value())) {
      ok = parse_int(v, 1, 1000000, &cfg->heavy_jobs);
    } else if (a == "--quiet" && (v = value())) {
      ok = parse_int(v, 1, 50, &cfg->quiet_producers);
    } else if (a == "--quiet-jobs" && (v = value())) {
      ok = parse_int(v, 1, 10000, &cfg->quiet_jobs);
    } else if (a == "--workers" && (v = value())) {
      ok = parse_int(v, 1, 64, &cfg->workers);
    } else if (a == "--handler-us" && (v = value())) {
      ok = parse_int(v, 0, 100000, &cfg->handler_us);
    } else if (a == "--rounds" && (v = value())) {
      ok = parse_rounds(v, &cfg->rounds);
    } else if (a == "--paid-weight" && (v = value())) {
      ok = parse_int(v, 1, 1000, &w);
      cfg->paid_weight = uint32_t(w);
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "echomq_demo: bad argument: %s\n", a.c_str());
      usage(stderr);
      return 2;
    }
  }
  if (cfg->url.empty()) {
    std::fprintf(stderr, "echomq_demo: --url is required\n");
    usage(stderr);
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  demo::Config cfg;
  if (int rc = parse_args(argc, argv, &cfg)) return rc;

  std::printf("EchoMQ %s demo: %d workers, %d us of work per job; rounds:\n"
              "  noisy    1 heavy producer (%d jobs), %d quiet ones (%d jobs each); q1 pays for\n"
              "           weight %u in the weighted run\n"
              "  costs    %d producers of %d jobs each, all backlogged; heavy's take %dx the work\n"
              "  tenants  tenant big: %d lanes of %d jobs; %d tenants of 1 lane, %d jobs each\n",
              echomq_version_string(), cfg.workers, cfg.handler_us, cfg.heavy_jobs,
              cfg.quiet_producers, cfg.quiet_jobs, cfg.paid_weight, cfg.quiet_producers + 1,
              cfg.cost_jobs, cfg.cost_factor, cfg.tenant_lanes, cfg.tenant_jobs,
              cfg.quiet_producers, cfg.tenant_jobs);

  std::vector<demo::RoundResult> rounds;
  int errors = 0;
  for (demo::Round round : cfg.rounds) {
    demo::RoundResult rr;
    rr.round = round;
    rr.producers = demo::make_producers(cfg, round);
    for (demo::Mode m : demo::round_modes(round)) {
      std::printf("running %-7s %-10s ... ", demo::round_title(round), demo::mode_title(m));
      std::fflush(stdout);
      rr.modes.push_back(demo::run_mode(cfg, rr.producers, round, m));
      const auto &r = rr.modes.back();
      std::printf("%zu jobs in %.0f ms%s\n", r.served.size(), r.duration_us / 1000.0,
                  r.errors ? "  FAILED" : "");
      for (const auto &msg : r.messages) std::fprintf(stderr, "  error: %s\n", msg.c_str());
      errors += r.errors;
      rr.axis_us = std::max(rr.axis_us, r.duration_us);
      if (r.errors) break;  // the later modes would fail the same way
    }
    rounds.push_back(std::move(rr));
    if (errors) break;
  }
  if (errors) {
    std::fprintf(stderr, "echomq_demo: %d error(s); no charts\n", errors);
    return 1;
  }

  for (const auto &rr : rounds)
    for (const auto &r : rr.modes) demo::print_mode(r, rr.producers, rr.round, rr.axis_us, cfg.ascii);
  for (const auto &rr : rounds) demo::print_glance(rr);

  if (!demo::write_svg(cfg.svg_path, rounds)) {
    std::fprintf(stderr, "echomq_demo: cannot write %s\n", cfg.svg_path.c_str());
    return 1;
  }
  std::printf("\ntimelines written to %s\n", cfg.svg_path.c_str());
  return 0;
}
