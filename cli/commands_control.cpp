// Lane control: pause, resume, weight, limit, rate, throttle, cap, the
// queue-wide defaults, and repair.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "lanes_walk.hpp"
#include "views.hpp"

namespace emqcli {
namespace {

const OptSpec kForce = {"force", 'f', nullptr, "no note for a lane that is new (no jobs, no settings yet)"};

// One rule in every binding and here: a setting may name a lane before its
// first job (it applies from then on). A lane typed by hand may be a typo,
// so a new one gets a note on stderr; --force says it is meant.
void note_new_lane(Context &ctx, const std::string &group) {
  if (ctx.args.has("force")) return;
  if (!lane_known(fetch_lane(ctx.session, group)))
    std::fprintf(stderr, "echomq: note: lane '%s' is new in queue '%s' (no jobs, no settings yet): the setting "
                         "applies from its first job (--force: no note)\n",
                 group.c_str(), ctx.session.queue().c_str());
}

// After a change, show the lane as the server now sees it.
int report_lane(Context &ctx, const std::string &group) {
  LaneRow r = fetch_lane(ctx.session, group);
  if (ctx.json) {
    Json j;
    lane_json(j, r, 0);
    print(j.text() + "\n");
    return kExitOk;
  }
  std::string extra;
  if (r.rate_jobs) extra += ", rate " + rate_text(r);
  if (r.next_token_at_ms) extra += ", next token in " + human_duration(std::max<int64_t>(0, r.next_token_at_ms - fetch_stats(ctx.session).server_time_ms));
  if (r.cap) extra += ", cap " + cap_text(r);
  print("lane " + r.group + ": " + (r.paused ? "paused" : "running") + ", weight " +
        weight_text(r) + ", limit " + limit_text(r) + extra + ", depth " + grouped(r.depth) +
        ", active " + grouped(r.active) + ", in ring " + (r.serviceable ? "yes" : "no") + "\n");
  return kExitOk;
}

int cmd_pause(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  require_group_name(group);
  note_new_lane(ctx, group);
  ctx.session.check(echomq_pause(ctx.session.client(), ctx.session.q(), group.c_str()), "pause");
  return report_lane(ctx, group);
}

int cmd_resume(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  require_group_name(group);
  note_new_lane(ctx, group);
  ctx.session.check(echomq_resume(ctx.session.client(), ctx.session.q(), group.c_str()), "resume");
  return report_lane(ctx, group);
}

int cmd_weight(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  const std::string value = ctx.args.positionals()[1];
  require_group_name(group);
  bool clear = value == "default";
  uint32_t w = clear ? 0 : static_cast<uint32_t>(parse_uint(value, 1, ECHOMQ_WEIGHT_MAX, "weight"));
  note_new_lane(ctx, group);
  echomq_client *c = ctx.session.client();
  ctx.session.check(clear ? echomq_clear_weight(c, ctx.session.q(), group.c_str())
                          : echomq_set_weight(c, ctx.session.q(), group.c_str(), w),
                    "weight");
  return report_lane(ctx, group);
}

int cmd_limit(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  const std::string value = ctx.args.positionals()[1];
  require_group_name(group);
  bool clear = value == "none" || value == "default";
  uint32_t n = clear ? 0 : static_cast<uint32_t>(parse_uint(value, 1, ECHOMQ_LIMIT_MAX, "limit"));
  note_new_lane(ctx, group);
  echomq_client *c = ctx.session.client();
  ctx.session.check(clear ? echomq_clear_limit(c, ctx.session.q(), group.c_str())
                          : echomq_set_limit(c, ctx.session.q(), group.c_str(), n),
                    "limit");
  return report_lane(ctx, group);
}

int cmd_rate(Context &ctx) {
  const auto &p = ctx.args.positionals();
  const std::string group = p[0];
  require_group_name(group);
  bool clear = p[1] == "none" || p[1] == "default";
  uint32_t jobs = 0, burst = 0;
  int64_t period = 0;
  if (!clear) {
    if (p.size() != 3) throw CliError(kExitUsage, "rate: give JOBS SECONDS, or none");
    jobs = static_cast<uint32_t>(parse_uint(p[1], 1, ECHOMQ_RATE_JOBS_MAX, "jobs"));
    period = parse_seconds_ms(p[2], 1, ECHOMQ_RATE_PERIOD_MAX_MS, "seconds");
    if (ctx.args.has("burst"))
      burst = static_cast<uint32_t>(parse_uint(ctx.args.get("burst"), 1, ECHOMQ_RATE_JOBS_MAX, "--burst"));
  } else if (p.size() != 2) {
    throw CliError(kExitUsage, "rate: 'none' takes no period");
  }
  note_new_lane(ctx, group);
  echomq_client *c = ctx.session.client();
  ctx.session.check(clear ? echomq_clear_rate(c, ctx.session.q(), group.c_str())
                          : echomq_set_rate(c, ctx.session.q(), group.c_str(), jobs, period, burst),
                    "rate");
  return report_lane(ctx, group);
}

int cmd_throttle(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  require_group_name(group);
  int64_t ms = parse_seconds_ms(ctx.args.positionals()[1], 1, ECHOMQ_DELAY_MAX_MS, "seconds");
  note_new_lane(ctx, group);
  ctx.session.check(echomq_throttle(ctx.session.client(), ctx.session.q(), group.c_str(), ms), "throttle");
  return report_lane(ctx, group);
}

// A queue mode (cost-mode, wait-figures) shown, or set first: a positional
// value in 1..hi (or "off" = 0) goes to `set`, then `get` reads it back.
int queue_mode(Context &ctx, const char *cmd, const char *arg, uint64_t hi, const char *json_on,
               const char *json_value, const std::function<int(uint64_t)> &set,
               const std::function<int(uint64_t *)> &get,
               const std::function<std::string(uint64_t)> &text) {
  const auto &p = ctx.args.positionals();
  if (!p.empty()) ctx.session.check(set(p[0] == "off" ? 0 : parse_uint(p[0], 1, hi, arg)), cmd);
  uint64_t value = 0;
  ctx.session.check(get(&value), cmd);
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue()).key(json_on).boolean(value > 0);
    j.key(json_value).num(value);
    j.end_object();
    print(j.text() + "\n");
    return kExitOk;
  }
  print(text(value));
  return kExitOk;
}

// wait-figures [SECONDS|off]: shows the window, or sets it first.
int cmd_wait_figures(Context &ctx) {
  echomq_client *c = ctx.session.client();
  const char *q = ctx.session.q();
  return queue_mode(
      ctx, "wait-figures", "window", ECHOMQ_WAIT_WINDOW_MAX_S, "wait_figures", "window_s",
      [&](uint64_t w) { return echomq_set_wait_figures(c, q, static_cast<uint32_t>(w)); },
      [&](uint64_t *out) {
        uint32_t w = 0;
        const int rc = echomq_get_wait_figures(c, q, &w);
        *out = w;
        return rc;
      },
      [](uint64_t w) {
        return w > 0 ? "wait figures: on, window " + std::to_string(w) + " s\n" : std::string("wait figures: off\n");
      });
}

// cost-mode [QUANTUM|off]: shows the mode, or sets it first.
int cmd_cost_mode(Context &ctx) {
  echomq_client *c = ctx.session.client();
  const char *q = ctx.session.q();
  return queue_mode(
      ctx, "cost-mode", "quantum", ECHOMQ_ID_MAX, "cost_mode", "quantum",
      [&](uint64_t v) { return echomq_set_cost_mode(c, q, v); },
      [&](uint64_t *out) { return echomq_get_cost_mode(c, q, out); },
      [](uint64_t v) {
        return v > 0 ? "cost mode: on, quantum " + std::to_string(v) + "\n"
                     : std::string("cost mode: off (turns count jobs)\n");
      });
}

int cmd_cap(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  const std::string value = ctx.args.positionals()[1];
  require_group_name(group, ECHOMQ_NAME_LANE);
  bool clear = value == "none" || value == "default";
  uint64_t n = clear ? 0 : parse_uint(value, 1, ECHOMQ_CAP_MAX, "cap");
  note_new_lane(ctx, group);
  echomq_client *c = ctx.session.client();
  ctx.session.check(clear ? echomq_clear_cap(c, ctx.session.q(), group.c_str())
                          : echomq_set_cap(c, ctx.session.q(), group.c_str(), n),
                    "cap");
  return report_lane(ctx, group);
}

int cmd_defaults(Context &ctx) {
  // Parse every value first: a bad --limit must not leave --weight applied.
  bool set_w = ctx.args.has("weight"), set_l = ctx.args.has("limit"),
       set_a = ctx.args.has("max-attempts"), set_r = ctx.args.has("rate"), set_c = ctx.args.has("cap");
  uint32_t w = 0, l = 0, a = 0, rj = 0;
  int64_t rp = 1;
  uint64_t cap = 0;
  if (set_r && ctx.args.get("rate") != "none") {
    // JOBS/SECONDS, e.g. 10/1 or 100/60
    const std::string v = ctx.args.get("rate");
    auto slash = v.find('/');
    if (slash == std::string::npos) throw CliError(kExitUsage, "--rate: give JOBS/SECONDS (e.g. 10/1) or none");
    rj = static_cast<uint32_t>(parse_uint(v.substr(0, slash), 1, ECHOMQ_RATE_JOBS_MAX, "--rate jobs"));
    rp = parse_seconds_ms(v.substr(slash + 1), 1, ECHOMQ_RATE_PERIOD_MAX_MS, "--rate seconds");
  }
  if (set_c && ctx.args.get("cap") != "none") cap = parse_uint(ctx.args.get("cap"), 1, ECHOMQ_CAP_MAX, "--cap");
  if (set_w) w = static_cast<uint32_t>(parse_uint(ctx.args.get("weight"), 1, ECHOMQ_WEIGHT_MAX, "--weight"));
  if (set_l && ctx.args.get("limit") != "none")
    l = static_cast<uint32_t>(parse_uint(ctx.args.get("limit"), 1, ECHOMQ_LIMIT_MAX, "--limit"));
  if (set_a)
    a = static_cast<uint32_t>(
        parse_uint(ctx.args.get("max-attempts"), 1, ECHOMQ_ATTEMPTS_MAX, "--max-attempts"));
  echomq_client *c = (set_w || set_l || set_a || set_r || set_c) ? ctx.session.client() : nullptr;
  if (set_r) ctx.session.check(echomq_set_default_rate(c, ctx.session.q(), rj, rp, 0), "defaults --rate");
  if (set_c) ctx.session.check(echomq_set_default_cap(c, ctx.session.q(), cap), "defaults --cap");
  if (set_w) ctx.session.check(echomq_set_default_weight(c, ctx.session.q(), w), "defaults --weight");
  if (set_l) ctx.session.check(echomq_set_default_limit(c, ctx.session.q(), l), "defaults --limit");
  if (set_a)
    ctx.session.check(echomq_set_default_max_attempts(c, ctx.session.q(), a), "defaults --max-attempts");
  echomq_queue_stats st = fetch_stats(ctx.session);
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue());
    j.key("weight").num(static_cast<uint64_t>(st.default_weight));
    j.key("limit");
    if (st.default_limit == 0) j.null();
    else j.num(static_cast<uint64_t>(st.default_limit));
    j.key("max_attempts").num(static_cast<uint64_t>(st.default_max_attempts));
    j.end_object();
    print(j.text() + "\n");
    return kExitOk;
  }
  print("defaults: weight " + std::to_string(st.default_weight) + ", limit " +
        (st.default_limit == 0 ? std::string("none") : std::to_string(st.default_limit)) +
        ", max attempts " + std::to_string(st.default_max_attempts) + "\n");
  return kExitOk;
}

// Repair: a dry run (read-only) unless --apply; loops the bounded steps of
// echomq_repair until the walk is done. Exits 6 when a dry run found changes
// to make, like verify.
int cmd_repair(Context &ctx) {
  const bool apply = ctx.args.has("apply");
  const size_t step = ctx.args.has("step")
                          ? static_cast<size_t>(parse_uint(ctx.args.get("step"), 1, ECHOMQ_BATCH_MAX, "--step"))
                          : 1000;
  std::vector<std::string> lines;
  std::string cursor;
  for (;;) {
    echomq_report *raw = nullptr;
    ctx.session.check(echomq_repair(ctx.session.client(), ctx.session.q(), apply ? 1 : 0,
                                    cursor.c_str(), step, &raw),
                      "repair");
    ReportPtr report(raw);
    for (size_t i = 0; i < echomq_report_count(report.get()); ++i)
      lines.push_back(echomq_report_at(report.get(), i));
    const char *next = echomq_report_cursor(report.get());
    if (!next) break;
    cursor = next;
  }
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue());
    j.key("applied").boolean(apply);
    j.key("changes").begin_array();
    for (const auto &line : lines) j.str(utf8_valid(line) ? line : display_bytes(line, line.size()));
    j.end_array().end_object();
    print(j.text() + "\n");
  } else if (lines.empty()) {
    print("ok: queue '" + ctx.session.queue() + "' needs no repair\n");
  } else {
    std::string out;
    for (const auto &line : lines) out += display_bytes(line, 400) + "\n";
    print(out);
  }
  if (lines.empty() || apply) return kExitOk;
  if (!ctx.json)
    std::fprintf(stderr, "echomq: repair: %zu change%s to make in queue '%s' (dry run; --apply makes them)\n",
                 lines.size(), lines.size() == 1 ? "" : "s", ctx.session.q());
  return kExitViolations;
}

}  // namespace

void add_control_commands(std::vector<Command> &out) {
  out.push_back({"repair", "[--apply] [--step N]",
                 "rebuild ring, active and live counts, lane directory and counters from the jobs",
                 "A dry run by default: lists each change and writes nothing (exit 6 when there\n"
                 "are changes to make, 0 when none). --apply makes the changes. The jobs'\n"
                 "places (lane pending sets, leases, delayed, dead) are the truth. Walks the\n"
                 "queue in bounded steps; stop the workers first (see docs/operations.md).",
                 {{"apply", 0, nullptr, "make the changes (default: a dry run)"},
                  {"step", 0, "N", "items walked per round trip, 1..10000 (default 1000)"}},
                 0, 0, true, cmd_repair});
  out.back().exits = "6 changes to make (a dry run)";
  out.push_back({"pause", "GROUP", "pause a lane: it keeps its jobs and is never served",
                 "Idempotent. Leased jobs of the lane run on; new claims skip it.", {kForce}, 1, 1,
                 true, cmd_pause});
  out.push_back({"resume", "GROUP", "resume a paused lane", "Idempotent.", {kForce}, 1, 1, true,
                 cmd_resume});
  out.push_back({"weight", "GROUP N|default", "set a lane's weight (jobs per ring turn under wclaim)",
                 "N is 1..1000000; 'default' goes back to the queue default.", {kForce}, 2, 2, true,
                 cmd_weight});
  out.push_back({"limit", "GROUP N|none", "set a lane's concurrency ceiling (leased jobs at once)",
                 "N is 1..1000000000; 'none' removes the lane's own ceiling, so the queue\n"
                 "default applies (unlimited unless 'echomq defaults --limit' set one).",
                 {kForce}, 2, 2, true, cmd_limit});
  out.push_back({"rate", "GROUP JOBS SECONDS [--burst N] | GROUP none [--force]",
                 "limit how many jobs of a lane start per period (a token bucket on server time)",
                 "At most JOBS jobs of the lane start per SECONDS (decimals allowed), in bursts\n"
                 "of up to --burst (default JOBS). A lane out of tokens leaves the ring and\n"
                 "rejoins by itself when its next token is due. 'none' removes the lane's own\n"
                 "rate, so the queue default applies ('echomq defaults --rate').",
                 {kForce, {"burst", 0, "N", "most jobs started at once after a quiet spell"}}, 2, 3,
                 true, cmd_rate});
  out.push_back({"throttle", "GROUP SECONDS", "start no job of a lane for a while (back off by hand)",
                 "For a worker told to back off by a downstream service: the lane leaves the\n"
                 "ring and runs again (under its rate, if any) when the time is up.",
                 {kForce}, 2, 2, true, cmd_throttle});
  out.push_back({"cost-mode", "[QUANTUM|off]", "show or set the queue's cost mode (turns count work, not jobs)",
                 "In cost mode each lane is charged what its jobs cost (handler time the\n"
                 "worker engine measures, in microseconds, or units the handler reports),\n"
                 "divided by its weight; a lane more than QUANTUM units past the least\n"
                 "charged sits out, off the ring, until the others catch up. 'off' goes back\n"
                 "to counting jobs (every lane that sat out rejoins at once).",
                 {}, 0, 1, true, cmd_cost_mode});
  out.push_back({"wait-figures", "[SECONDS|off]", "show or set the queue's per-lane wait figures",
                 "With a window of SECONDS (1..86400) every claim records each lane's wait\n"
                 "from enqueue to first delivery and its deliveries; lanes, lane and top then\n"
                 "show wait p50/p99 and the served share against the fair share over the last\n"
                 "one to two windows. 'off' stops recording and drops the figures.",
                 {}, 0, 1, true, cmd_wait_figures});
  out.push_back({"cap", "GROUP N|none", "cap how many jobs may wait in a lane (pending + delayed)",
                 "An enqueue past the cap is refused (a batch whole) and writes nothing.\n"
                 "'none' removes the lane's own cap, so the queue default applies.",
                 {kForce}, 2, 2, true, cmd_cap});
  out.push_back({"defaults", "[--weight N] [--limit N|none] [--rate J/SECONDS|none] [--cap N|none] [--max-attempts N]",
                 "show or set the queue-wide defaults for lanes without their own settings",
                 "Without options it only shows them.",
                 {{"weight", 0, "N", "default weight, 1..1000000"},
                  {"limit", 0, "N|none", "default concurrency ceiling, or none"},
                  {"rate", 0, "J/SECONDS|none", "default rate limit (e.g. 10/1), or none"},
                  {"cap", 0, "N|none", "default size cap, or none"},
                  {"max-attempts", 0, "N", "attempts for jobs enqueued without their own"}},
                 0, 0, true, cmd_defaults});
}

}  // namespace emqcli
