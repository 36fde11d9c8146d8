// main.cpp — echomq_demo: the noisy-neighbour problem, seen.
//
// One heavy producer floods its lane with thousands of jobs; nine quiet
// producers submit a few each just after. Workers drain the queue three ways
// in turn: one shared FIFO lane (the unfair baseline), fair lanes with
// claim, and fair lanes with weights via wclaim (q1 is a paid tenant). The
// demo prints a timeline and a table per mode and writes an SVG.
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
               "                   [--paid-weight W] [--ascii]\n"
               "  --url         Valkey server (or env ECHOMQ_URL)\n"
               "  --svg         timeline file to write (default echomq-demo.svg)\n"
               "  --heavy       jobs of the heavy producer (default 4000)\n"
               "  --quiet       quiet producers (default 9)\n"
               "  --quiet-jobs  jobs per quiet producer (default 20)\n"
               "  --workers     worker threads (default 4)\n"
               "  --handler-us  simulated work per job, microseconds (default 300)\n"
               "  --paid-weight weight of the paid tenant q1 in the weighted run (default 3)\n"
               "  --ascii       plain ASCII charts\n");
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

double median_of(const std::vector<demo::ProducerStats> &st, size_t from) {
  std::vector<double> v;
  for (size_t i = from; i < st.size(); ++i) v.push_back(st[i].median_wait_ms);
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  demo::Config cfg;
  if (int rc = parse_args(argc, argv, &cfg)) return rc;
  const auto producers = demo::make_producers(cfg);

  int quiet_total = cfg.quiet_producers * cfg.quiet_jobs;
  std::printf("EchoMQ %s demo: 1 heavy producer (%d jobs), %d quiet ones (%d jobs each),\n"
              "%d workers, %d us of work per job; q1 pays for weight %u in the weighted run.\n",
              echomq_version_string(), cfg.heavy_jobs, cfg.quiet_producers, cfg.quiet_jobs,
              cfg.workers, cfg.handler_us, cfg.paid_weight);

  std::vector<demo::ModeResult> results;
  int errors = 0;
  for (demo::Mode m : {demo::Mode::fifo, demo::Mode::lanes, demo::Mode::weighted}) {
    std::printf("running %-8s ... ", demo::mode_title(m));
    std::fflush(stdout);
    results.push_back(demo::run_mode(cfg, producers, m));
    const auto &r = results.back();
    std::printf("%zu jobs in %.0f ms%s\n", r.served.size(), r.duration_us / 1000.0,
                r.errors ? "  FAILED" : "");
    for (const auto &msg : r.messages) std::fprintf(stderr, "  error: %s\n", msg.c_str());
    errors += r.errors;
    if (r.errors) break;  // the later modes would fail the same way
  }
  if (errors) {
    std::fprintf(stderr, "echomq_demo: %d error(s); no charts\n", errors);
    return 1;
  }

  int64_t axis = 0;
  for (const auto &r : results) axis = std::max(axis, r.duration_us);
  for (const auto &r : results) demo::print_mode(r, producers, axis, cfg.ascii);

  std::printf("\nAt a glance: the quiet producers' median wait (%d jobs between them)\n",
              quiet_total);
  for (const auto &r : results) {
    auto st = demo::producer_stats(r, producers.size());
    double j = demo::jain_index(r, producers, r.mode == demo::Mode::weighted);
    std::printf("  %-9s quiet %7.1f ms   heavy %7.1f ms   q1 %7.1f ms   Jain %s\n",
                demo::mode_title(r.mode), median_of(st, 1), st[0].median_wait_ms,
                st.size() > 1 ? st[1].median_wait_ms : 0.0,
                j < 0 ? "n/a" : std::to_string(j).substr(0, 5).c_str());
  }

  if (!demo::write_svg(cfg.svg_path, results, producers, axis)) {
    std::fprintf(stderr, "echomq_demo: cannot write %s\n", cfg.svg_path.c_str());
    return 1;
  }
  std::printf("\ntimelines written to %s\n", cfg.svg_path.c_str());
  return 0;
}
