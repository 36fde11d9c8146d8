// `echomq top`: a live view of the busiest lanes, refreshed every second.
#include <ctime>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "lanes_walk.hpp"
#include "terminal.hpp"
#include "views.hpp"

namespace emqcli {
namespace {

constexpr size_t kTrendPoints = 12;
const LaneSort kSorts[] = {LaneSort::kDepth, LaneSort::kActive, LaneSort::kServed, LaneSort::kName};

/// Eight-level bar chart of a series, scaled to its own maximum.
std::string sparkline(const std::deque<double> &values) {
  static const char *bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  double top = 0;
  for (double v : values) top = v > top ? v : top;
  std::string out;
  for (double v : values) out += bars[top <= 0 ? 0 : static_cast<int>(v / top * 7.0 + 0.5)];
  return out;
}

std::string rate_text(double r) {
  char buf[32];
  if (r < 10) std::snprintf(buf, sizeof buf, "%.1f", r);
  else return grouped(static_cast<uint64_t>(r + 0.5));
  return buf;
}

std::string clock_text(int64_t server_ms) {
  time_t secs = static_cast<time_t>(server_ms / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%H:%M:%S UTC", &tm);
  return buf;
}

// Served counters seen on the previous frame give the per-second rates.
struct Sample {
  uint64_t served = 0;
  int64_t at_ms = 0;
  std::deque<double> rates;
};

struct Frame {
  echomq_queue_stats stats{};
  LaneTop lanes;
};

class TopView {
 public:
  TopView(Session &s, LaneSort sort) : s_(s), sort_(sort) {}

  Frame fetch(size_t rows) {
    Frame f;
    f.stats = fetch_stats(s_);
    f.lanes = top_lanes(s_, sort_, rows);
    fill_tenant_shares(s_, f.lanes.rows);
    return f;
  }

  /// Update the rate history with a new frame (lanes not shown are dropped).
  void observe(const Frame &f) {
    int64_t now = f.stats.server_time_ms;
    std::map<std::string, Sample> next;
    for (const auto &r : f.lanes.rows) {
      Sample smp;
      auto it = samples_.find(r.group);
      if (it != samples_.end() && now > it->second.at_ms) {
        smp.rates = it->second.rates;
        uint64_t d = r.served >= it->second.served ? r.served - it->second.served : 0;
        smp.rates.push_back(static_cast<double>(d) * 1000.0 / static_cast<double>(now - it->second.at_ms));
        if (smp.rates.size() > kTrendPoints) smp.rates.pop_front();
      }
      smp.served = r.served;
      smp.at_ms = now;
      next[r.group] = std::move(smp);
    }
    samples_ = std::move(next);
    if (queue_at_ms_ != 0 && now > queue_at_ms_) {
      uint64_t d = f.stats.claimed_total >= queue_served_ ? f.stats.claimed_total - queue_served_ : 0;
      queue_rates_.push_back(static_cast<double>(d) * 1000.0 / static_cast<double>(now - queue_at_ms_));
      if (queue_rates_.size() > kTrendPoints * 2) queue_rates_.pop_front();
    }
    queue_served_ = f.stats.claimed_total;
    queue_at_ms_ = now;
  }

  std::vector<std::string> render(const Frame &f, const std::string &error, bool live) const {
    const auto &st = f.stats;
    std::vector<std::string> out;
    std::string head = "echomq top  queue " + s_.queue() + "  " + clock_text(st.server_time_ms) +
                       "  sort: " + lane_sort_name(sort_);
    if (live) head += "   [s/1-4] sort  [q] quit";
    out.push_back(head);
    // A tenant's own row T/ is not a lane: lanes and tenants are counted apart.
    out.push_back("lanes " + grouped(st.lanes) + (st.tenants ? "  tenants " + grouped(st.tenants) : "") +
                  "  ring " + grouped(st.ring) + "  paused " +
                  grouped(st.paused) + "  pending " + grouped(st.pending) + "  leased " +
                  grouped(st.leased) + "  delayed " + grouped(st.delayed) + "  dead " +
                  grouped(st.dead));
    std::string served = "served " + grouped(st.claimed_total) + "  rate ";
    served += queue_rates_.empty() ? "-" : rate_text(queue_rates_.back()) + "/s  " + sparkline(queue_rates_);
    out.push_back(served);
    out.push_back(error.empty() ? "" : "error: " + error);
    const auto &rows = f.lanes.rows;
    const bool waits = any_wait_figures(rows), cost = any_cost_figures(rows);
    std::vector<std::string> cols{"LANE", "DEPTH", "ACTIVE/LIMIT", "WEIGHT", "SERVED", "SERVED/S", "TREND", "RATE"};
    std::vector<bool> right{false, true, true, true, true, true, false, true};
    const bool tenants = any_tenant(rows);
    if (waits) {
      // SHARE is of the queue; IN TENANT a lane's part of its tenant's.
      for (const char *h : {"WAIT P99", "SHARE"}) cols.push_back(h);
      if (tenants) cols.push_back("IN TENANT");
      cols.push_back("FAIR");
      right.insert(right.end(), tenants ? 4 : 3, true);
    }
    if (cost) {
      cols.push_back("COST V");
      right.push_back(true);
    }
    Table t(cols, right);
    std::vector<bool> indent;
    for (size_t i : tenant_order(rows, indent)) {
      const LaneRow &r = rows[i];
      auto it = samples_.find(r.group);
      bool has_rate = it != samples_.end() && !it->second.rates.empty();
      std::string name = (indent[i] ? "  " : "") + fit_width(r.group, 32) + (r.paused ? " (paused)" : "");
      std::vector<std::string> row{name, grouped(r.depth), active_limit_text(r), std::to_string(r.weight),
                                   grouped(r.served), has_rate ? rate_text(it->second.rates.back()) : "-",
                                   has_rate ? sparkline(it->second.rates) : "", rate_short(r)};
      if (waits) {
        row.push_back(wait_short(r.wait_p99_ms));
        row.push_back(share_short(r.share));
        if (tenants) row.push_back(share_short(r.share_in_tenant));
        row.push_back(share_short(r.fair_share));
      }
      if (cost) row.push_back(cost_short(r));
      t.add(row);
    }
    for (auto &l : t.lines()) out.push_back(std::move(l));
    return out;
  }

  void set_sort(LaneSort s) { sort_ = s; }
  LaneSort sort() const { return sort_; }

 private:
  Session &s_;
  LaneSort sort_;
  std::map<std::string, Sample> samples_;
  std::deque<double> queue_rates_;
  uint64_t queue_served_ = 0;
  int64_t queue_at_ms_ = 0;
};

int top_once(Context &ctx, TopView &view, size_t rows) {
  Frame f = view.fetch(rows);
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue());
    stats_json_members(j, f.stats);
    j.key("sort").str(lane_sort_name(view.sort()));
    j.key("lanes").begin_array();
    for (const auto &r : f.lanes.rows) lane_json(j, r, f.stats.server_time_ms);
    j.end_array().end_object();
    print(j.text() + "\n");
    return kExitOk;
  }
  view.observe(f);
  std::string out;
  for (const auto &l : view.render(f, "", false)) out += l + "\n";
  print(out);
  return kExitOk;
}

int cmd_top(Context &ctx) {
  LaneSort sort = parse_lane_sort(ctx.args.get("sort", "depth"));
  int64_t interval = parse_seconds_ms(ctx.args.get("interval", "1"), 100, 3600 * 1000, "--interval");
  bool once = ctx.args.has("once");
  size_t once_rows = parse_uint(ctx.args.get("limit", "20"), 1, 10000, "--limit");
  if (ctx.json && !once) throw usage_error("top: --json needs --once");
  TopView view(ctx.session, sort);
  if (once) return top_once(ctx, view, once_rows);

  // Fail on a bad server before taking over the screen.
  Frame f = view.fetch(1);
  Terminal term;
  std::string error;
  for (;;) {
    int rows = 0, cols = 0;
    term.size(rows, cols);
    size_t lane_rows = rows > 6 ? static_cast<size_t>(rows - 6) : 1;
    try {
      f = view.fetch(lane_rows);
      view.observe(f);
      error.clear();
    } catch (const CliError &e) {
      error = e.what();  // keep showing the last good frame and retry next tick
    }
    std::vector<std::string> lines = view.render(f, error, true);
    if (lines.size() > static_cast<size_t>(rows)) lines.resize(static_cast<size_t>(rows));
    for (auto &l : lines) l = fit_width(l, static_cast<size_t>(cols));
    term.draw(lines);

    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
      timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      int64_t spent = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
      if (spent >= interval) break;
      int key = term.read_key(static_cast<int>(interval - spent));
      if (key == -1) continue;
      if (key == -2) break;
      if (key == 'q' || key == 'Q' || key == 3) return kExitOk;  // not Esc: arrow keys start with it
      if (key == 's') {
        size_t i = 0;
        while (kSorts[i] != view.sort()) ++i;
        view.set_sort(kSorts[(i + 1) % 4]);
        break;
      }
      if (key >= '1' && key <= '4') {
        view.set_sort(kSorts[key - '1']);
        break;
      }
    }
  }
}

}  // namespace

void add_top_command(std::vector<Command> &out) {
  out.push_back({"top", "[--sort KEY] [--interval S] [--once [--limit N]]",
                 "live full-screen view of the busiest lanes, refreshed every second",
                 "Keys: q quit, s next sort, 1 depth, 2 active, 3 served, 4 name.\n"
                 "SERVED/S and TREND need two frames; --once prints one frame (no rates).",
                 {{"sort", 0, "KEY", "depth (default), active, served or name"},
                  {"interval", 0, "S", "seconds between frames (default 1)"},
                  {"once", 0, nullptr, "print one frame to stdout and exit"},
                  {"limit", 0, "N", "lanes in the --once frame (default 20)"}},
                 0, 0, true, cmd_top});
}

}  // namespace emqcli
