// demo.hpp — shared types of the noisy-neighbour demo.
//
// The demo runs one workload three ways (one shared FIFO lane, fair lanes
// with claim, fair lanes with weights via wclaim) and records, for every
// job, who produced it, when it was submitted and when a worker got it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace demo {

/// How the workers drain the queue.
enum class Mode { fifo, lanes, weighted };

/// Human name of a mode, as printed in headings.
const char *mode_title(Mode m);

/// One producer: a name, how many jobs it submits and its lane weight.
struct Producer {
  std::string name;
  int jobs = 0;
  uint32_t weight = 1;  // used only in Mode::weighted
  bool heavy = false;
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
};

/// The producers the config describes: "heavy" first, then q1..qN.
std::vector<Producer> make_producers(const Config &cfg);

/// One served job, times in microseconds since the start of its mode's run.
struct Served {
  int producer = 0;
  int64_t submit_us = 0;
  int64_t claim_us = 0;
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
ModeResult run_mode(const Config &cfg, const std::vector<Producer> &producers, Mode mode);

/// Per-producer figures of one mode.
struct ProducerStats {
  int served = 0;
  double median_wait_ms = 0;
  double worst_wait_ms = 0;
};

std::vector<ProducerStats> producer_stats(const ModeResult &r, size_t producers);

/// Jain's fairness index over the run: the mean, over windows of
/// consecutive services, of Jain's index of served/weight among the
/// producers that stayed backlogged through the window. 1 = perfectly fair.
/// Returns a negative value when no window had two backlogged producers.
double jain_index(const ModeResult &r, const std::vector<Producer> &producers, bool weighted);

/// Terminal output: one timeline row per producer, then the table.
void print_mode(const ModeResult &r, const std::vector<Producer> &producers, int64_t axis_us,
                bool ascii);

/// Writes all timelines to an SVG file; returns false on I/O failure.
bool write_svg(const std::string &path, const std::vector<ModeResult> &results,
               const std::vector<Producer> &producers, int64_t axis_us);

}  // namespace demo
