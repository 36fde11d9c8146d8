// sections.hpp — the parts of a benchmark run, each adding its figures.
#pragma once

#include "results.hpp"
#include "server.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bench {

/// How big each measurement is; --quick picks the small set.
struct Sizes {
  int runs = 5;                 // every figure is the median of this many runs
  uint64_t ops1 = 10000;        // operations per run with 1 client
  uint64_t ops8 = 20000;        // operations per run with 8 clients (all together)
  uint64_t wclaim_jobs = 40000; // cap on jobs delivered per wclaim run
  uint64_t bulk_jobs = 50000;   // jobs per bulk-enqueue run
  uint32_t bulk_batch = 100;    // jobs per echomq_enqueue_batch call
  std::vector<uint64_t> lane_counts{10, 1000, 100000, 1000000};
  uint64_t deep = 1000000;      // pending jobs of the deep lane
  uint64_t memory_jobs = 1000000;
  int memory_runs = 3;          // loads of memory_jobs per payload size
  uint64_t fair_jobs = 20000;   // jobs of the 100-lane skewed load
  int weighted_turns = 20;      // ring turns measured for the weighted share
  uint64_t sybil_claims = 20200;     // claims per run of the Sybil workload (100 flat turns)
  uint64_t tenant_lanes = 1000000;   // lanes of the tenant scale run...
  uint64_t tenant_count = 10000;     // ...under this many tenants
};

Sizes full_sizes();
Sizes quick_sizes();

/// One contender of a comparison: run(round) does its own untimed set-up
/// and returns the measured value of that round.
struct Variant {
  std::string section;
  std::string name;
  std::function<double(int)> run;
  bool hidden = false;  // a reference sample (the paired floor), not printed
};

/// The paired floor: a short raw EVALSHA sample taken in every round of a
/// comparison, so each ratio reads both sides on the same machine state.
class FloorProbe {
 public:
  FloorProbe(const std::string &url, int clients);
  ~FloorProbe();
  FloorProbe(const FloorProbe &) = delete;
  FloorProbe &operator=(const FloorProbe &) = delete;
  /// calls/s of `ops` EVALSHA calls spread over the clients; 0 on error.
  double sample(uint64_t ops);

 private:
  std::vector<struct redisContext *> cs_;
  std::string sha_;
};

/// The claim-shaped reference: a minimal Lua script doing what a claim
/// must (LMOVE, ZPOPMIN, TIME, HINCRBY, ZADD, HMGET), run raw through
/// hiredis on its own keys. It tells the cost of the shape from the cost of
/// EchoMQ's extra bookkeeping.
class ShapeProbe {
 public:
  ShapeProbe(const std::string &url, int clients);
  ~ShapeProbe();
  ShapeProbe(const ShapeProbe &) = delete;
  ShapeProbe &operator=(const ShapeProbe &) = delete;
  /// Loads ops jobs over `lanes` lanes (untimed), then claims them; calls/s.
  double sample(uint64_t ops, uint64_t lanes = 100);

 private:
  std::vector<struct redisContext *> cs_;
  std::string sha_;
};

/// Median over rounds of a.runs[r] / b.runs[r] (figures of one comparison).
double paired_ratio(const Figure &a, const Figure &b);

/// What every section needs.
struct Context {
  std::string url;
  Sizes sz;
  bool check = false;       // extra correctness checks (verify after sections)
  Admin *admin = nullptr;   // housekeeping connection
  Results *out = nullptr;
  std::string queue = "bench";

  /// FLUSHALL, so each measurement starts from an empty server.
  bool fresh();
  /// Runs one_run(run) sz.runs times (each does its own untimed set-up and
  /// returns its measured value) and adds the median as a figure.
  Figure &measure(const std::string &section, const std::string &name, int clients,
                  const std::string &unit, const std::function<double(int)> &one_run);
  /// Runs the variants one after another in each of sz.runs rounds (so a
  /// comparison sees one machine state per round) and adds a figure per
  /// visible variant: the median value and, when ref >= 0, the median per-round
  /// ratio to variant ref. Returns the figures in variant order (hidden ones
  /// are returned too, but not added to the results).
  std::vector<Figure *> rounds(int clients, const std::string &unit,
                               const std::vector<Variant> &variants, int ref,
                               const std::string &ratio_to);
  /// In --check mode, verify the invariants of a queue (default: queue).
  void checkpoint(const std::string &where, const std::string &q = "");
};

void run_floor(Context &ctx);
/// The script floor: minimal enqueue and claim/ack scripts against EchoMQ's
/// at batches of 1 and 32, server µs per job (scriptfloor.cpp).
void run_script_floor(Context &ctx);
void run_throughput(Context &ctx);
void run_memory(Context &ctx);
void run_scale(Context &ctx);
void run_fairness(Context &ctx);
void run_cost(Context &ctx);
void run_rate(Context &ctx);
void run_tenants(Context &ctx);
void run_schedules(Context &ctx);
void run_flows(Context &ctx);
void run_lifecycle(Context &ctx);
/// Evaluates the targets over the figures gathered so far.
void add_targets(Results &r);

/// `echomq_bench compare ...`: the peer-comparison workloads, JSON on stdout.
int run_compare(int argc, char **argv);

}  // namespace bench
