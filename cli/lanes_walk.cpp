#include "lanes_walk.hpp"

#include <algorithm>
#include <queue>

#include "errors.hpp"

namespace emqcli {

LaneSort parse_lane_sort(const std::string &text) {
  if (text == "depth") return LaneSort::kDepth;
  if (text == "active") return LaneSort::kActive;
  if (text == "served") return LaneSort::kServed;
  if (text == "name") return LaneSort::kName;
  throw usage_error("--sort must be depth, active, served or name (got '" + text + "')");
}

const char *lane_sort_name(LaneSort s) {
  switch (s) {
    case LaneSort::kDepth: return "depth";
    case LaneSort::kActive: return "active";
    case LaneSort::kServed: return "served";
    case LaneSort::kName: return "name";
  }
  return "?";
}

LaneRow lane_row(const echomq_lane_info &info) {
  LaneRow r;
  r.group = info.group;
  r.depth = info.depth;
  r.active = info.active;
  r.limit = info.limit;
  r.weight = info.weight;
  r.limit_is_default = info.limit_is_default != 0;
  r.weight_is_default = info.weight_is_default != 0;
  r.paused = info.paused != 0;
  r.serviceable = info.serviceable != 0;
  r.served = info.served;
  r.oldest_enqueued_at_ms = info.oldest_enqueued_at_ms;
  r.known = info.known != 0;
  r.delayed = info.delayed;
  r.rate_jobs = info.rate_jobs;
  r.rate_period_ms = info.rate_period_ms;
  r.rate_burst = info.rate_burst;
  r.rate_is_default = info.rate_is_default != 0;
  r.tokens = info.tokens;
  r.next_token_at_ms = info.next_token_at_ms;
  r.cap = info.cap;
  r.cap_is_default = info.cap_is_default != 0;
  r.tenant = info.tenant;
  r.is_tenant = info.is_tenant != 0;
  r.wait_samples = info.wait_samples;
  r.wait_p50_ms = info.wait_p50_ms;
  r.wait_p99_ms = info.wait_p99_ms;
  r.window_claims = info.window_claims;
  r.share = info.share;
  r.fair_share = info.fair_share;
  r.cost_v = info.cost_v;
  r.sits_out = info.sits_out != 0;
  return r;
}

bool ranks_before(const LaneRow &a, const LaneRow &b, LaneSort s) {
  uint64_t ka = 0, kb = 0;
  switch (s) {
    case LaneSort::kDepth: ka = a.depth; kb = b.depth; break;
    case LaneSort::kActive: ka = a.active; kb = b.active; break;
    case LaneSort::kServed: ka = a.served; kb = b.served; break;
    case LaneSort::kName: break;
  }
  if (ka != kb) return ka > kb;
  return a.group < b.group;  // std::string compares bytes as unsigned, like the server
}

void each_lane(Session &s, size_t page, const std::function<bool(const LaneRow &)> &fn) {
  std::string after;
  for (;;) {
    echomq_lane_list *raw = nullptr;
    s.check(echomq_lanes(s.client(), s.q(), after.empty() ? nullptr : after.c_str(), page, &raw),
            "lanes");
    LaneListPtr list(raw);
    size_t n = echomq_lane_list_count(list.get());
    for (size_t i = 0; i < n; ++i)
      if (!fn(lane_row(*echomq_lane_list_at(list.get(), i)))) return;
    const char *next = echomq_lane_list_next(list.get());
    if (next == nullptr || n == 0) return;
    after = next;
  }
}

LaneTop top_lanes(Session &s, LaneSort sort, size_t limit, size_t page) {
  LaneTop out;
  auto cmp = [sort](const LaneRow &a, const LaneRow &b) { return ranks_before(a, b, sort); };
  // Max-heap under "ranks before": the top is the worst row kept so far.
  std::priority_queue<LaneRow, std::vector<LaneRow>, decltype(cmp)> heap(cmp);
  each_lane(s, page, [&](const LaneRow &r) {
    ++out.scanned;
    if (sort == LaneSort::kName) {
      out.rows.push_back(r);
      return limit == 0 || out.rows.size() < limit;
    }
    if (limit == 0 || heap.size() < limit) {
      heap.push(r);
    } else if (ranks_before(r, heap.top(), sort)) {
      heap.pop();
      heap.push(r);
    }
    return true;
  });
  if (sort != LaneSort::kName) {
    out.rows.reserve(heap.size());
    while (!heap.empty()) {
      out.rows.push_back(heap.top());
      heap.pop();
    }
    std::reverse(out.rows.begin(), out.rows.end());
  }
  return out;
}

// The server decides (a lane with live jobs, delayed ones too, or settings
// of its own); the CLI does not keep a copy of the rule.
bool lane_known(const LaneRow &r) { return r.known; }

LaneRow fetch_lane(Session &s, const std::string &group) {
  echomq_lane_info info{};
  info.version = ECHOMQ_LANE_INFO_VERSION;
  s.check(echomq_lane(s.client(), s.q(), group.c_str(), &info), "lane '" + group + "'");
  return lane_row(info);
}

}  // namespace emqcli
