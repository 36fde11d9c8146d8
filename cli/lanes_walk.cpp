#include "lanes_walk.hpp"

#include <algorithm>
#include <functional>
#include <map>
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

namespace {

// Keeps the best `limit` rows under a numeric sort (0 = all) in a max-heap
// under "ranks before": its top is the worst row kept so far.
class TopKeeper {
 public:
  TopKeeper(LaneSort sort, size_t limit)
      : limit_(limit), heap_([sort](const LaneRow &a, const LaneRow &b) { return ranks_before(a, b, sort); }) {}
  void add(const LaneRow &r, LaneTop &out) {
    ++out.scanned;
    if (limit_ == 0 || heap_.size() < limit_) {
      heap_.push(r);
    } else if (heap_.value_comp()(r, heap_.top())) {
      heap_.pop();
      heap_.push(r);
    }
  }
  void finish(LaneTop &out) {
    out.rows.reserve(heap_.size());
    while (!heap_.empty()) {
      out.rows.push_back(heap_.top());
      heap_.pop();
    }
    std::reverse(out.rows.begin(), out.rows.end());
    out.more = out.scanned > out.rows.size();
  }

 private:
  struct Heap : std::priority_queue<LaneRow, std::vector<LaneRow>, std::function<bool(const LaneRow &, const LaneRow &)>> {
    using priority_queue::priority_queue;
    const value_compare &value_comp() const { return comp; }
  };
  size_t limit_;
  Heap heap_;
};

}  // namespace

LaneTop top_lanes(Session &s, LaneSort sort, size_t limit, size_t page) {
  LaneTop out;
  if (sort == LaneSort::kName) {
    each_lane(s, page, [&](const LaneRow &r) {
      if (limit != 0 && out.rows.size() >= limit) {
        out.more = true;  // one row past the limit: stop here
        return false;
      }
      ++out.scanned;
      out.rows.push_back(r);
      return true;
    });
    return out;
  }
  TopKeeper keep(sort, limit);
  each_lane(s, page, [&](const LaneRow &r) {
    keep.add(r, out);
    return true;
  });
  keep.finish(out);
  return out;
}

std::pair<LaneTop, LaneTop> top_lanes_and_tenants(Session &s, LaneSort sort, size_t limit) {
  std::pair<LaneTop, LaneTop> out;
  TopKeeper lanes(sort, limit), tenants(sort, limit);
  each_lane(s, 1000, [&](const LaneRow &r) {
    if (r.is_tenant) tenants.add(r, out.second);
    else lanes.add(r, out.first);
    return true;
  });
  lanes.finish(out.first);
  tenants.finish(out.second);
  return out;
}

void fill_tenant_shares(Session &s, std::vector<LaneRow> &rows) {
  std::map<std::string, double> tenant_share;
  for (const LaneRow &r : rows)
    if (r.is_tenant) tenant_share[r.tenant] = r.share;
  for (LaneRow &r : rows) {
    if (r.tenant.empty() || r.is_tenant || r.share < 0) continue;
    auto it = tenant_share.find(r.tenant);
    if (it == tenant_share.end()) it = tenant_share.emplace(r.tenant, fetch_lane(s, r.tenant + "/").share).first;
    if (it->second > 0) r.share_in_tenant = std::min(1.0, r.share / it->second);
  }
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
