// main.cpp — echomq_bench: EchoMQ measured against the round-trip floor.
//
//   echomq_bench [--quick] [--check] [--json FILE] [--url URL] [--only LIST]
//   echomq_bench compare --url URL [...]      (see compare.cpp)
//
// Starts its own valkey-server (persistence off) unless --url is given, runs
// every section, prints one table and optionally writes the same figures as
// JSON. Every figure is the median of several runs.
#include "common.hpp"
#include "sections.hpp"
#include "server.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

namespace bench {

Sizes full_sizes() { return Sizes{}; }

Sizes quick_sizes() {
  Sizes s;
  s.runs = 3;
  s.ops1 = 1000;
  s.ops8 = 4000;
  s.wclaim_jobs = 4000;
  s.bulk_jobs = 10000;
  s.lane_counts = {10, 1000, 10000};
  s.deep = 10000;
  s.memory_jobs = 10000;
  s.memory_runs = 1;
  s.fair_jobs = 5000;
  s.weighted_turns = 5;
  s.sybil_claims = 2020;
  s.tenant_lanes = 10000;
  s.tenant_count = 100;
  return s;
}

bool Context::fresh() {
  if (admin->flushall()) return true;
  errors().add("FLUSHALL failed");
  return false;
}

Figure &Context::measure(const std::string &section, const std::string &name, int clients,
                         const std::string &unit, const std::function<double(int)> &one_run) {
  Figure f;
  f.section = section;
  f.name = name;
  f.clients = clients;
  f.unit = unit;
  for (int r = 0; r < sz.runs; ++r) f.runs.push_back(one_run(r));
  f.value = median(f.runs);
  std::fprintf(stderr, "  %-12s %-52s %3d  %.6g %s\n", section.c_str(), name.c_str(), clients,
               f.value, unit.c_str());
  return out->add(f);
}

double paired_ratio(const Figure &a, const Figure &b) {
  std::vector<double> r;
  for (size_t i = 0; i < a.runs.size() && i < b.runs.size(); ++i)
    if (b.runs[i] > 0) r.push_back(a.runs[i] / b.runs[i]);
  return r.empty() ? NAN : median(r);
}

std::vector<Figure *> Context::rounds(int clients, const std::string &unit,
                                      const std::vector<Variant> &variants, int ref,
                                      const std::string &ratio_to) {
  std::vector<Figure> figs(variants.size());
  for (size_t v = 0; v < variants.size(); ++v) {
    figs[v].section = variants[v].section;
    figs[v].name = variants[v].name;
    figs[v].clients = clients;
    figs[v].unit = unit;
  }
  // The order rotates from round to round, so no contender always runs first
  // (right after a FLUSHALL) or last.
  for (int r = 0; r < sz.runs; ++r)
    for (size_t i = 0; i < variants.size(); ++i) {
      size_t v = (i + size_t(r)) % variants.size();
      figs[v].runs.push_back(variants[v].run(r));
    }
  std::vector<Figure *> out;
  static std::deque<Figure> hidden;  // keeps hidden references valid
  for (size_t v = 0; v < variants.size(); ++v) {
    Figure &f = figs[v];
    f.value = median(f.runs);
    if (ref >= 0) {
      f.ratio = size_t(ref) == v ? 1.0 : paired_ratio(f, figs[ref]);
      f.ratio_to = ratio_to;
    }
    std::fprintf(stderr, "  %-12s %-52s %3d  %.6g %s\n", f.section.c_str(), f.name.c_str(),
                 clients, f.value, unit.c_str());
  }
  for (size_t v = 0; v < variants.size(); ++v) {
    if (variants[v].hidden) {
      hidden.push_back(figs[v]);
      out.push_back(&hidden.back());
    } else {
      out.push_back(&this->out->add(figs[v]));
    }
  }
  return out;
}

void Context::checkpoint(const std::string &where, const std::string &q) {
  if (check) {
    Client c(url);
    if (c.get()) verify(c.get(), q.empty() ? queue : q, where);
  }
}

void add_targets(Results &r) {
  auto value = [&](const char *sec, const std::string &name, int n, bool ratio) {
    const Figure *f = r.find(sec, name, n);
    return f ? (ratio ? f->ratio : f->value) : NAN;
  };
  r.targets.push_back({"claim, 1 client, vs floor", value("claim", "claim", 1, true), 0.70});
  r.targets.push_back({"claim+ack cycle, fused / ack-then-claim, 1 client",
                       value("one-rtt", "fused cycle / ack-then-claim", 1, false), 1.6});
  r.targets.push_back({"wclaim K=16 jobs/s / claim jobs/s, 1 client",
                       value("wclaim", "wclaim K=16 jobs/s / claim", 1, false), 8.0});
  const Figure *most = nullptr;
  for (const auto &f : r.figures)
    if (f.section == "scale-lanes") most = &f;
  if (most)
    r.targets.push_back({most->name.substr(7) + " vs 10 lanes", most->ratio, 0.8});
  r.targets.push_back(
      {"weighted share: worst |served - weight| per lane per turn",
       value("fairness", "worst |served - w| per turn, wclaim w=1..5", 0, false), 1.0,
       true});
  for (const char *mode : {"cost mode", "tenants"}) {
    r.targets.push_back({std::string("claim loop, ") + mode + " vs flat",
                         value("rate", std::string("claim loop, ") + mode, 1, true), 0.9});
    r.targets.push_back({std::string("engine drain, ") + mode + " vs flat",
                         value("rate", std::string("engine drain, ") + mode, 1, true), 0.9});
  }
  const Figure *in_tenants = nullptr;
  for (const auto &f : r.figures)
    if (f.section == "tenants" && f.name.compare(0, 7, "claim, ") == 0) in_tenants = &f;
  if (in_tenants)
    r.targets.push_back({in_tenants->name.substr(7) + " vs 10 lanes", in_tenants->ratio, 0.8});
  r.targets.push_back({"Sybil, tenants: worst |A-B| per outer turn",
                       value("tenants", "Sybil: worst |A-B| per outer turn, tenants", 0, false),
                       0.0, true});
  r.targets.push_back({"claim, 10,000 schedules none due / none: server CPU per claim",
                       value("schedules", "server CPU/claim, 10,000 schedules, none due", 0, true), 1.02, true});
  r.targets.push_back({"claim, 1,000 schedules none due / none: server CPU per claim (quick)",
                       value("schedules", "server CPU/claim, 1,000 schedules, none due", 0, true), 1.02, true});
  r.targets.push_back({"tick lateness p99 with a worker engine (ms)",
                       value("schedules", "tick lateness p99, every 100 ms, idle engine", 1, false), 50, true});
  r.targets.push_back({"claim, a queue limit set / none: server CPU per claim",
                       value("lifecycle", "server CPU/claim, a queue limit (never reached)", 0, true), 1.05, true});
  // Sections left out with --only measure nothing to judge.
  r.targets.erase(std::remove_if(r.targets.begin(), r.targets.end(),
                                 [](const Target &t) { return std::isnan(t.measured); }),
                  r.targets.end());
}

}  // namespace bench

namespace {

void usage(std::FILE *to) {
  std::fprintf(to,
               "usage: echomq_bench [--quick] [--check] [--json FILE] [--url URL]\n"
               "                    [--only SECTIONS] [--runs N] [--allow-flush]\n"
               "       echomq_bench compare --url URL [--jobs N] [--workers 1,8]\n"
               "  --quick        small sizes: a smoke run of well under a minute\n"
               "  --check        verify queue invariants and counts after each section;\n"
               "                 exit non-zero on any error (no timing assertions)\n"
               "  --json FILE    also write the figures as JSON (\"-\" = stdout)\n"
               "  --url URL      use this server instead of starting valkey-server; it must\n"
               "                 be an empty database (the bench flushes it between runs)\n"
               "                 unless --allow-flush is given\n"
               "  --only LIST    comma-separated sections: floor,throughput,memory,scale,fairness,\n"
               "                 cost,rate,tenants,schedules,flows\n"
               "  --runs N       runs per figure (default 5, 3 with --quick)\n");
}

bool wanted(const std::string &only, const char *section) {
  if (only.empty()) return true;
  std::string list = "," + only + ",";
  return list.find(std::string(",") + section + ",") != std::string::npos;
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

}  // namespace

int main(int argc, char **argv) {
  using namespace bench;
  if (argc > 1 && std::strcmp(argv[1], "compare") == 0) return run_compare(argc - 1, argv + 1);

  bool quick = false, check = false, allow_flush = false;
  std::string json, url, only;
  int runs = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    const char *v = nullptr;
    if (a == "--quick") quick = true;
    else if (a == "--check") check = true;
    else if (a == "--allow-flush") allow_flush = true;
    else if (a == "--json" && (v = next())) json = v;
    else if (a == "--url" && (v = next())) url = v;
    else if (a == "--only" && (v = next())) only = v;
    else if (a == "--runs" && (v = next())) runs = std::atoi(v);
    else if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "echomq_bench: bad argument: %s\n", a.c_str());
      usage(stderr);
      return 2;
    }
  }

  OwnServer own;
  std::string server_version;
  const bool own_server = url.empty();
  if (own_server) {
    if (!own.start()) return 1;
    url = own.url();
    server_version = own.version();
  }
  Admin admin(url);
  if (!admin.connected()) {
    std::fprintf(stderr, "echomq_bench: cannot reach %s\n", url.c_str());
    return 1;
  }
  if (server_version.empty()) server_version = admin.info_field("server", "valkey_version");
  if (!own_server && !allow_flush && admin.dbsize() != 0) {
    std::fprintf(stderr,
                 "echomq_bench: %s is not empty; the bench flushes the database between runs.\n"
                 "Point it at an empty database, or pass --allow-flush.\n",
                 url.c_str());
    return 2;
  }

  Results results;
  Context ctx;
  ctx.url = url;
  ctx.sz = quick ? quick_sizes() : full_sizes();
  if (runs > 0) ctx.sz.runs = runs;
  ctx.check = check;
  ctx.admin = &admin;
  ctx.out = &results;

  const unsigned cores = std::thread::hardware_concurrency();
  std::printf("echomq_bench: libechomq %s, valkey %s, %u cores, %s run, median of %d runs\n",
              echomq_version_string(), server_version.c_str(), cores, quick ? "quick" : "full",
              ctx.sz.runs);
  std::fflush(stdout);
  auto t0 = Clock::now();
  struct Section {
    const char *name;
    void (*fn)(Context &);
  };
  const Section sections[] = {{"floor", run_floor},
                              {"throughput", run_throughput},
                              {"memory", run_memory},
                              {"scale", run_scale},
                              {"fairness", run_fairness},
                              {"cost", run_cost},
                              {"rate", run_rate},
                              {"tenants", run_tenants},
                              {"schedules", run_schedules},
                              {"flows", run_flows},
                              {"lifecycle", run_lifecycle}};
  for (const auto &s : sections) {
    if (!wanted(only, s.name)) continue;
    std::fprintf(stderr, "[%6.1f s] %s\n", seconds_since(t0), s.name);
    s.fn(ctx);
  }
  admin.flushall();
  add_targets(results);
  results.notes.push_back("payload 16 bytes in throughput runs; 100 lanes unless stated; "
                          "lease 60 s; ratios to the floor compare jobs/s with calls/s");
  print_table(results);
  const double total = seconds_since(t0);
  std::printf("\ntotal %.1f s\n", total);

  if (!json.empty()) {
    char header[512];
    std::snprintf(header, sizeof header,
                  "\"bench\": {\"library\": %s, \"valkey\": %s, \"cores\": %u, \"quick\": %s, "
                  "\"runs\": %d, \"started\": %s, \"seconds\": %.1f}",
                  json_str(echomq_version_string()).c_str(), json_str(server_version).c_str(),
                  cores, quick ? "true" : "false", ctx.sz.runs, json_str(now_utc()).c_str(),
                  total);
    if (!write_json(results, json, header)) {
      std::fprintf(stderr, "echomq_bench: cannot write %s\n", json.c_str());
      return 1;
    }
  }
  if (int n = errors().count()) {
    std::fprintf(stderr, "echomq_bench: %d error(s):\n", n);
    for (const auto &m : errors().messages()) std::fprintf(stderr, "  %s\n", m.c_str());
    return 1;
  }
  if (check) std::printf("check: no errors\n");
  return 0;
}
