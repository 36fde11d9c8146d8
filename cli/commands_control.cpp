// Lane control: pause, resume, weight, limit, and the queue-wide defaults.
#include <cstdint>
#include <string>
#include <vector>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "lanes_walk.hpp"
#include "views.hpp"

namespace emqcli {
namespace {

const OptSpec kForce = {"force", 'f', nullptr,
                        "configure the lane even if it is unknown (no jobs, no settings yet)"};

// A typo in a tenant name would silently create settings for a lane nobody
// uses, so unknown lanes are refused unless --force says it is meant.
void require_known_lane(Context &ctx, const std::string &group) {
  if (ctx.args.has("force")) return;
  if (!lane_known(fetch_lane(ctx.session, group)))
    throw CliError(kExitNotFound, "no such lane '" + group + "' in queue '" + ctx.session.queue() +
                                      "' (use --force to configure a lane before its first job)");
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
  print("lane " + r.group + ": " + (r.paused ? "paused" : "running") + ", weight " +
        weight_text(r) + ", limit " + limit_text(r) + ", depth " + grouped(r.depth) +
        ", active " + grouped(r.active) + ", in ring " + (r.serviceable ? "yes" : "no") + "\n");
  return kExitOk;
}

int cmd_pause(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  require_group_name(group);
  require_known_lane(ctx, group);
  ctx.session.check(echomq_pause(ctx.session.client(), ctx.session.q(), group.c_str()), "pause");
  return report_lane(ctx, group);
}

int cmd_resume(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  require_group_name(group);
  require_known_lane(ctx, group);
  ctx.session.check(echomq_resume(ctx.session.client(), ctx.session.q(), group.c_str()), "resume");
  return report_lane(ctx, group);
}

int cmd_weight(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  const std::string value = ctx.args.positionals()[1];
  require_group_name(group);
  bool clear = value == "default";
  uint32_t w = clear ? 0 : static_cast<uint32_t>(parse_uint(value, 1, ECHOMQ_WEIGHT_MAX, "weight"));
  require_known_lane(ctx, group);
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
  require_known_lane(ctx, group);
  echomq_client *c = ctx.session.client();
  ctx.session.check(clear ? echomq_clear_limit(c, ctx.session.q(), group.c_str())
                          : echomq_set_limit(c, ctx.session.q(), group.c_str(), n),
                    "limit");
  return report_lane(ctx, group);
}

int cmd_defaults(Context &ctx) {
  // Parse every value first: a bad --limit must not leave --weight applied.
  bool set_w = ctx.args.has("weight"), set_l = ctx.args.has("limit"),
       set_a = ctx.args.has("max-attempts");
  uint32_t w = 0, l = 0, a = 0;
  if (set_w) w = static_cast<uint32_t>(parse_uint(ctx.args.get("weight"), 1, ECHOMQ_WEIGHT_MAX, "--weight"));
  if (set_l && ctx.args.get("limit") != "none")
    l = static_cast<uint32_t>(parse_uint(ctx.args.get("limit"), 1, ECHOMQ_LIMIT_MAX, "--limit"));
  if (set_a)
    a = static_cast<uint32_t>(
        parse_uint(ctx.args.get("max-attempts"), 1, ECHOMQ_ATTEMPTS_MAX, "--max-attempts"));
  echomq_client *c = (set_w || set_l || set_a) ? ctx.session.client() : nullptr;
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

}  // namespace

void add_control_commands(std::vector<Command> &out) {
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
  out.push_back({"defaults", "[--weight N] [--limit N|none] [--max-attempts N]",
                 "show or set the queue-wide defaults for lanes without their own settings",
                 "Without options it only shows them.",
                 {{"weight", 0, "N", "default weight, 1..1000000"},
                  {"limit", 0, "N|none", "default concurrency ceiling, or none"},
                  {"max-attempts", 0, "N", "attempts for jobs enqueued without their own"}},
                 0, 0, true, cmd_defaults});
}

}  // namespace emqcli
