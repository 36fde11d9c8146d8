#include "metrics.hpp"

#include <cstdint>
#include <cstdio>
#include <functional>
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
  f.head("echomq_lanes", "gauge", "Lanes known: with live jobs or settings of their own (not the tenants' own rows).");
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
      {"echomq_canceled", "Jobs canceled.", st.canceled_total},
      {"echomq_expired", "Jobs whose start deadline passed.", st.expired_total},
  };
  for (const auto &c : counters) {
    f.head(c.name, "counter", c.help);
    f.sample(std::string(c.name) + "_total", q, c.v);
  }
  f.head("echomq_tenants", "gauge", "Tenants: with a lane or a setting of their own listed.");
  f.sample("echomq_tenants", q, st.tenants);
  // The deepest lanes and, apart, the deepest tenants (a tenant's row T/
  // sums its lanes: in one family with them, a sum over the family would
  // count their jobs twice). bindings/python/echomq/exporter.py prints the same.
  std::vector<LaneRow> lanes, tenants;
  if (top > 0) {
    auto both = top_lanes_and_tenants(s, LaneSort::kDepth, top);
    for (const LaneRow &r : both.first.rows)
      if (r.depth > 0) lanes.push_back(r);
    for (const LaneRow &r : both.second.rows)
      if (r.depth > 0) tenants.push_back(r);
  }
  // Lane series carry the lane's tenant ("" for none): the same label set
  // for every lane. Tenant series carry the tenant.
  auto ll = [&](const LaneRow &r) {
    return q + ",lane=\"" + label(r.group) + "\",tenant=\"" + label(r.tenant) + "\"";
  };
  auto tl = [&](const LaneRow &r) { return q + ",tenant=\"" + label(r.tenant) + "\""; };
  struct Kind {
    const char *prefix;  // echomq_lane or echomq_tenant
    const char *what;    // for the help text
    const std::vector<LaneRow> &rows;
    std::function<std::string(const LaneRow &)> labels;
  };
  const Kind kinds[] = {
      {"echomq_lane", "lanes", lanes, ll},
      {"echomq_tenant", "tenants (the sums of their lanes)", tenants, tl},
  };
  for (const Kind &k : kinds) {
    const std::string p = k.prefix;
    f.head((p + "_depth").c_str(), "gauge",
           (std::string("Pending jobs of the deepest ") + k.what + " (top N by depth).").c_str());
    for (const LaneRow &r : k.rows) f.sample(p + "_depth", k.labels(r), r.depth);
    f.head((p + "_active").c_str(), "gauge", "Leased jobs of the same.");
    for (const LaneRow &r : k.rows) f.sample(p + "_active", k.labels(r), r.active);
    f.head((p + "_wait_seconds").c_str(), "gauge",
           "Wait from enqueue to first claim of the same, over the figures' window (bucket upper edge).");
    for (const LaneRow &r : k.rows) {
      if (r.wait_samples == 0) continue;
      f.sample(p + "_wait_seconds", k.labels(r) + ",quantile=\"0.5\"", r.wait_p50_ms / 1000.0);
      f.sample(p + "_wait_seconds", k.labels(r) + ",quantile=\"0.99\"", r.wait_p99_ms / 1000.0);
    }
    f.head((p + "_window_share").c_str(), "gauge",
           "Part of the queue's claims (cost in cost mode) in the window.");
    for (const LaneRow &r : k.rows)
      if (r.share >= 0) f.sample(p + "_window_share", k.labels(r), r.share);
    f.head((p + "_fair_share").c_str(), "gauge",
           "Part of the queue's claims its weight entitles it to in the window (a tenant's lanes share the tenant's by count).");
    for (const LaneRow &r : k.rows)
      if (r.share >= 0) f.sample(p + "_fair_share", k.labels(r), r.fair_share);
    f.head((p + "_cost_v").c_str(), "gauge", "Cost mode: cost charged divided by weight.");
    for (const LaneRow &r : k.rows)
      if (r.cost_v >= 0 || r.sits_out) f.sample(p + "_cost_v", k.labels(r), r.cost_v);
    f.head((p + "_sits_out").c_str(), "gauge", "Cost mode: 1 while over its share, off the ring.");
    for (const LaneRow &r : k.rows)
      if (r.cost_v >= 0 || r.sits_out) f.sample(p + "_sits_out", k.labels(r), static_cast<uint64_t>(r.sits_out));
  }
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
