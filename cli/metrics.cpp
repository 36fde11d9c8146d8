#include "metrics.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "lanes_walk.hpp"

namespace emqcli {
namespace {

// A label value: backslash, double quote and newline escaped.
std::string label(const std::string &v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

struct Family {
  std::string text;
  void head(const char *name, const char *type, const char *help) {
    text += std::string("# TYPE ") + name + " " + type + "\n# HELP " + name + " " + help + "\n";
  }
  void sample(const std::string &name, const std::string &labels, uint64_t v) {
    text += name + "{" + labels + "} " + std::to_string(v) + "\n";
  }
  void sample(const std::string &name, const std::string &labels, double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    text += name + "{" + labels + "} " + buf + "\n";
  }
};

}  // namespace

std::string prometheus_text(Session &s, size_t top) {
  echomq_queue_stats st = fetch_stats(s);
  const std::string q = "queue=\"" + label(s.queue()) + "\"";
  Family f;
  f.head("echomq_jobs", "gauge", "Jobs of the queue by state.");
  f.sample("echomq_jobs", q + ",state=\"pending\"", st.pending);
  f.sample("echomq_jobs", q + ",state=\"leased\"", st.leased);
  f.sample("echomq_jobs", q + ",state=\"delayed\"", st.delayed);
  f.sample("echomq_jobs", q + ",state=\"dead\"", st.dead);
  f.head("echomq_lanes", "gauge", "Lanes known: with live jobs or settings of their own.");
  f.sample("echomq_lanes", q, st.lanes);
  f.head("echomq_lanes_ready", "gauge", "Lanes in the ring: serviceable now.");
  f.sample("echomq_lanes_ready", q, st.ring);
  f.head("echomq_lanes_paused", "gauge", "Paused lanes.");
  f.sample("echomq_lanes_paused", q, st.paused);
  const struct {
    const char *name, *help;
    uint64_t v;
  } counters[] = {
      {"echomq_enqueued", "Jobs enqueued.", st.enqueued_total},
      {"echomq_claimed", "Deliveries (claims).", st.claimed_total},
      {"echomq_acked", "Jobs acknowledged.", st.acked_total},
      {"echomq_failed", "Failed attempts (fail calls and expired leases).", st.failed_total},
      {"echomq_dead_lettered", "Jobs dead-lettered.", st.dead_total},
  };
  for (const auto &c : counters) {
    f.head(c.name, "counter", c.help);
    f.sample(std::string(c.name) + "_total", q, c.v);
  }
  std::vector<LaneRow> rows;
  if (top > 0) {
    for (const LaneRow &r : top_lanes(s, LaneSort::kDepth, top).rows)
      if (r.depth > 0) rows.push_back(r);
  }
  // Lane series carry the lane's tenant ("" for none): the same label set
  // for every lane (bindings/python/echomq/exporter.py prints the same).
  auto ll = [&](const LaneRow &r) {
    return q + ",lane=\"" + label(r.group) + "\",tenant=\"" + label(r.tenant) + "\"";
  };
  f.head("echomq_lane_depth", "gauge", "Pending jobs of the deepest lanes (top N by depth).");
  for (const LaneRow &r : rows) f.sample("echomq_lane_depth", ll(r), r.depth);
  f.head("echomq_lane_active", "gauge", "Leased jobs of the same lanes.");
  for (const LaneRow &r : rows) f.sample("echomq_lane_active", ll(r), r.active);
  f.head("echomq_lane_wait_seconds", "gauge",
         "Wait from enqueue to first claim of the same lanes, over the figures' window (bucket upper edge).");
  for (const LaneRow &r : rows) {
    if (r.wait_samples == 0) continue;
    f.sample("echomq_lane_wait_seconds", ll(r) + ",quantile=\"0.5\"", r.wait_p50_ms / 1000.0);
    f.sample("echomq_lane_wait_seconds", ll(r) + ",quantile=\"0.99\"", r.wait_p99_ms / 1000.0);
  }
  f.head("echomq_lane_window_share", "gauge", "Part of the queue's claims (cost in cost mode) in the window.");
  for (const LaneRow &r : rows)
    if (r.share >= 0) f.sample("echomq_lane_window_share", ll(r), r.share);
  f.head("echomq_lane_fair_share", "gauge", "Part the lane's weight entitles it to in the window.");
  for (const LaneRow &r : rows)
    if (r.share >= 0) f.sample("echomq_lane_fair_share", ll(r), r.fair_share);
  f.head("echomq_lane_cost_v", "gauge", "Cost mode: cost charged divided by weight.");
  for (const LaneRow &r : rows)
    if (r.cost_v >= 0 || r.sits_out) f.sample("echomq_lane_cost_v", ll(r), r.cost_v);
  f.head("echomq_lane_sits_out", "gauge", "Cost mode: 1 while over its share, off the ring.");
  for (const LaneRow &r : rows)
    if (r.cost_v >= 0 || r.sits_out) f.sample("echomq_lane_sits_out", ll(r), static_cast<uint64_t>(r.sits_out));
  // Schedules (echomq/schedules.h): every schedule of the queue.
  std::vector<echomq::ScheduleListPtr> pages;
  std::string after;
  for (;;) {
    echomq_schedule_list *raw = nullptr;
    s.check(echomq_schedules(s.client(), s.q(), after.c_str(), 1000, &raw), "stats: schedules");
    pages.emplace_back(raw);
    const char *next = echomq_schedule_list_next(raw);
    if (!next) break;
    after = next;
  }
  auto each = [&](auto &&fn) {
    for (auto &p : pages)
      for (size_t i = 0; i < echomq_schedule_list_count(p.get()); ++i) fn(*echomq_schedule_list_at(p.get(), i));
  };
  auto sl = [&](const echomq_schedule_info &i) { return q + ",schedule=\"" + label(i.name) + "\""; };
  f.head("echomq_schedule_fires", "counter", "Ticks the schedule fired (one job each).");
  each([&](const echomq_schedule_info &i) { f.sample("echomq_schedule_fires_total", sl(i), i.runs); });
  f.head("echomq_schedule_skips", "counter",
         "Ticks the schedule skipped: missed, late, overlapping, lane full or fired already.");
  each([&](const echomq_schedule_info &i) { f.sample("echomq_schedule_skips_total", sl(i), i.skips); });
  f.head("echomq_schedule_lateness_seconds", "gauge", "How late its latest fired tick fired: from its time to its enqueue.");
  each([&](const echomq_schedule_info &i) {
    if (i.fired_at_ms) f.sample("echomq_schedule_lateness_seconds", sl(i), (i.fired_at_ms - i.fired_tick_ms) / 1000.0);
  });
  return f.text + "# EOF\n";
}

}  // namespace emqcli
