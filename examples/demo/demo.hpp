// demo.hpp — shared types of the noisy-neighbour demo.
//
// The demo runs three rounds, each one workload drawn several ways:
// - noisy: one shared FIFO lane, fair lanes with claim, fair lanes with
//   weights via wclaim;
// - costs: one producer's jobs take 10x the work; count-fair against
//   cost-fair (the queue's cost mode, handler time measured by the engine);
// - tenants: one tenant spreads its jobs over 100 lanes, nine have one lane
//   each; flat lanes against lanes inside tenants.
// For every job it records who produced it, when it was submitted and when
// a worker got it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace demo {

/// How the workers drain the queue.
enum class Mode { fifo, lanes, weighted, count_fair, cost_fair, flat, tenants };

/// The rounds, each one workload drawn in its modes.
enum class Round { noisy, costs, tenants };

/// Human name of a mode, as printed in headings.
const char *mode_title(Mode m);

/// One producer: a name, how many jobs it submits and its lane weight.
struct Producer {
  std::string name;
  int jobs = 0;
  uint32_t weight = 1;  // used only in Mode::weighted
  bool heavy = false;   // floods at once (noisy round) or stands out (drawn red)
  int work = 1;         // handler time per job, in units of --handler-us
  int lanes = 1;        // its jobs spread round-robin over this many lanes
};

/// Everything the run depends on; filled from the command line.
struct Config {
  std::string url;
  std::string svg_path = "echomq-demo.svg";
  int heavy_jobs = 4000;
  int quiet_producers = 9;
  int quiet_jobs = 20;
  int workers = 4;
  int handler_us = 300;      // simulated work per job
  int quiet_start_ms = 10;   // first quiet burst, after the flood is in
  int quiet_stagger_ms = 1;  // gap between quiet bursts
  uint32_t paid_weight = 3;  // weight of the paid tenant (the first quiet one)
  bool ascii = false;        // plain ASCII charts instead of block characters
  std::vector<Round> rounds{Round::noisy, Round::costs, Round::tenants};
  int cost_jobs = 60;        // costs round: jobs of each producer
  int cost_factor = 10;      // costs round: the heavy producer's work per job
  int tenant_lanes = 100;    // tenants round: lanes of the big tenant
  int tenant_jobs = 20;      // tenants round: jobs per lane
};

/// The producers of a round: the heavy one first, then q1..qN (t1..tN).
std::vector<Producer> make_producers(const Config &cfg, Round round);

/// The modes of a round, in the order they run.
std::vector<Mode> round_modes(Round round);
const char *round_title(Round round);

/// True for rounds whose producers all submit at once before the workers
/// start (every producer backlogged from the first claim).
bool backlogged_round(Round round);

/// The lane of job k of producer p in a mode: one shared lane for FIFO;
/// "name-u<k % lanes>" in flat mode, "name/u<k % lanes>" (lane of tenant
/// name) in tenants mode; else the producer's name.
std::string lane_of(const Producer &p, Mode mode, int k);

/// One served job, times in microseconds since the start of its mode's run.
struct Served {
  int producer = 0;
  int64_t submit_us = 0;
  int64_t claim_us = 0;
  int64_t work_us = 0;  // how long its handler ran
};

/// What one mode produced.
struct ModeResult {
  Mode mode = Mode::fifo;
  std::vector<Served> served;  // sorted by claim time
  int64_t duration_us = 0;     // first submit to last claim
  int errors = 0;              // failed API calls or count mismatches
  std::vector<std::string> messages;
};

/// Runs one mode against a fresh queue; never throws.
ModeResult run_mode(const Config &cfg, const std::vector<Producer> &producers, Round round,
                    Mode mode);

/// Per-producer figures of one mode.
struct ProducerStats {
  int served = 0;
  double median_wait_ms = 0;
  double worst_wait_ms = 0;
};

std::vector<ProducerStats> producer_stats(const ModeResult &r, size_t producers);

/// What a served job counts for fairness: the time its handler ran in the
/// costs round, 1 otherwise; divided by its producer's weight in the
/// weighted mode.
double share_unit(const Served &s, const Producer &p, Mode mode);

/// Jain's fairness index over the run: the mean, over windows of
/// consecutive services, of Jain's index of served share units among the
/// producers that stayed backlogged through the window. 1 = perfectly fair.
/// Returns a negative value when no window had two backlogged producers.
double jain_index(const ModeResult &r, const std::vector<Producer> &producers);

/// Each producer's share (%) of the service (in share units, unweighted)
/// up to the claim of the first producer's last job: while all were
/// backlogged.
std::vector<double> backlogged_shares(const ModeResult &r, const std::vector<Producer> &producers);

/// Terminal output: one timeline row per producer, then the table.
void print_mode(const ModeResult &r, const std::vector<Producer> &producers, Round round,
                int64_t axis_us, bool ascii);

/// One round's results, as drawn.
struct RoundResult {
  Round round = Round::noisy;
  std::vector<Producer> producers;
  std::vector<ModeResult> modes;
  int64_t axis_us = 0;  // the longest mode: the common time axis
};

/// The round's "at a glance" lines.
void print_glance(const RoundResult &rr);

/// Writes all timelines to an SVG file; returns false on I/O failure.
bool write_svg(const std::string &path, const std::vector<RoundResult> &rounds);

}  // namespace demo
