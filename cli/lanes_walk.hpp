// Walking every lane of a queue page by page, keeping only the top N rows
// in a bounded heap, so a million lanes never sit in memory at once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "client.hpp"

namespace emqcli {

/// Orders for lane listings. Numeric sorts are descending, ties by name.
enum class LaneSort { kDepth, kActive, kServed, kName };

/// Parse "depth", "active", "served" or "name"; usage error otherwise.
LaneSort parse_lane_sort(const std::string &text);
const char *lane_sort_name(LaneSort s);

/// One lane's figures, owned (the C API's rows belong to their page).
struct LaneRow {
  std::string group;
  uint64_t depth = 0;
  uint64_t active = 0;
  uint32_t limit = 0;  // 0 = unlimited
  uint32_t weight = 1;
  bool limit_is_default = true;
  bool weight_is_default = true;
  bool paused = false;
  bool serviceable = false;
  uint64_t served = 0;
  int64_t oldest_enqueued_at_ms = 0;
  bool known = false;  // the server's rule: live jobs or settings of its own
  uint64_t delayed = 0;
  uint32_t rate_jobs = 0;  // 0 = no rate limit
  int64_t rate_period_ms = 0;
  uint32_t rate_burst = 0;
  bool rate_is_default = true;
  double tokens = -1;
  int64_t next_token_at_ms = 0;
  uint64_t cap = 0;  // 0 = no size cap
  bool cap_is_default = true;
  std::string tenant;  // "" = no tenant; T for lane "T/L" and tenant row "T/"
  bool is_tenant = false;
  uint64_t wait_samples = 0;
  double wait_p50_ms = -1, wait_p99_ms = -1;  // -1 = none
  uint64_t window_claims = 0;
  double share = -1, fair_share = -1;  // -1 = none
  double cost_v = -1;                  // -1 = no charge
  bool sits_out = false;
  // A lane of a tenant: its part of its tenant's share (fill_tenant_shares); -1 = none.
  double share_in_tenant = -1;
};

LaneRow lane_row(const echomq_lane_info &info);

/// True if `a` is listed before `b` under sort `s`.
bool ranks_before(const LaneRow &a, const LaneRow &b, LaneSort s);

/// Result of a walk: the best `limit` rows in order, how many rows were
/// seen, and whether rows exist beyond them (a name sort stops at the first
/// row past the limit, so then `scanned` is not the whole count).
struct LaneTop {
  std::vector<LaneRow> rows;
  uint64_t scanned = 0;
  bool more = false;
};

/// Sets share_in_tenant of each lane of a tenant with a window share: its
/// share over its tenant's (the tenant's row from `rows`, else read).
void fill_tenant_shares(Session &s, std::vector<LaneRow> &rows);

/// Walk the lanes with echomq_lanes in pages of `page` and keep the top
/// `limit` rows (0 = all, which holds every lane in memory). A name sort
/// stops as soon as it has `limit` rows, since pages come in name order.
LaneTop top_lanes(Session &s, LaneSort sort, size_t limit, size_t page = 1000);

/// One walk, two tops under a numeric sort: the best `limit` lanes and,
/// apart, the best `limit` tenant rows (T/), so neither crowds out the other.
std::pair<LaneTop, LaneTop> top_lanes_and_tenants(Session &s, LaneSort sort, size_t limit);

/// Every lane in name order, one callback per row, one page in memory at a
/// time; the walk stops early when the callback returns false.
void each_lane(Session &s, size_t page, const std::function<bool(const LaneRow &)> &fn);

/// True if a lane has anything to show: jobs, leases, service or its own
/// settings. echomq_lane reports zeros for unknown lanes, so this tells a
/// typo from a tenant.
bool lane_known(const LaneRow &r);

/// One lane's figures via echomq_lane.
LaneRow fetch_lane(Session &s, const std::string &group);

}  // namespace emqcli
