// Queue figures as OpenMetrics text (`echomq stats --format prometheus`).
// The metric names are documented in docs/operations.md; the Python
// exporter (bindings/python/echomq/exporter.py) serves the same ones, and a
// test compares the two.
#pragma once

#include <cstddef>
#include <string>

#include "client.hpp"

namespace emqcli {

/// Lanes reported by depth at most (bounded label cardinality).
constexpr size_t kMetricsTopMax = 100;

/// The queue's figures and its `top` deepest lanes (depth > 0, ties by
/// name) as OpenMetrics text ending in "# EOF".
std::string prometheus_text(Session &s, size_t top);

}  // namespace emqcli
