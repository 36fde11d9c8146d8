// results.hpp — the figures a run produces, the table and the JSON.
#pragma once

#include <cmath>
#include <deque>
#include <string>
#include <vector>

namespace bench {

/// One printed figure: a median over runs, with an optional ratio.
struct Figure {
  std::string section;   // "floor", "claim", "scale-lanes", ...
  std::string name;      // what was measured
  int clients = 0;       // 0 = not a throughput figure
  double value = 0;      // the median
  std::string unit;      // "ops/s", "jobs/s", "bytes/job", ...
  double ratio = NAN;    // value / reference, NAN = none
  std::string ratio_to;  // what the ratio is against ("floor", "10 lanes", ...)
  std::vector<double> runs;  // every run's value
};

/// A target of issue 5, checked against the measured medians.
struct Target {
  std::string name;
  double measured = NAN;
  double goal = 0;
  bool at_most = false;  // true: measured <= goal; false: measured >= goal
  bool met() const { return !std::isnan(measured) && (at_most ? measured <= goal : measured >= goal); }
};

struct Results {
  std::deque<Figure> figures;  // a deque: references stay valid as figures are added
  std::vector<Target> targets;
  std::vector<std::string> notes;

  Figure &add(Figure f) {
    figures.push_back(std::move(f));
    return figures.back();
  }
  /// The first figure with this section and name and client count, or nullptr.
  const Figure *find(const std::string &section, const std::string &name, int clients = 0) const;
};

/// Prints the table of figures and targets to stdout.
void print_table(const Results &r);

/// Writes the same figures as JSON; "-" = stdout. False on I/O error.
bool write_json(const Results &r, const std::string &path, const std::string &header_json);

/// JSON string escaping for the writers here and in compare mode.
std::string json_str(const std::string &s);

/// A number for JSON (null for NaN or infinity).
std::string json_num(double v);

}  // namespace bench
