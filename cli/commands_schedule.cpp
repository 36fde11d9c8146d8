// `echomq schedule add|rm|ls|pause|resume|next`: a queue's periodic jobs
// (echomq/schedules.h). Every argument is checked before any I/O.
#include <cstdint>
#include <string>
#include <vector>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"

namespace emqcli {
namespace {

const char *const kSubcommands = "add, rm, ls, pause, resume or next";

void require_schedule_name(const std::string &name) {
  bool ok = !name.empty() && name.size() <= ECHOMQ_SCHEDULE_NAME_MAX;
  for (char c : name)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                c == '.' || c == ':' || c == '-');
  if (!ok)
    throw usage_error("schedule: bad name '" + display_bytes(name, 80) + "' (1.." +
                      std::to_string(ECHOMQ_SCHEDULE_NAME_MAX) + " bytes of [A-Za-z0-9_.:-])");
}

// The options that only `add` takes.
const char *const kSpecOptions[] = {"lane",  "every", "cron",  "zone",    "payload", "max-attempts", "keep",
                                    "keep-last", "cost-estimate", "start", "end", "limit", "missed", "grace",
                                    "overlap"};

int cmd_add(Context &ctx, const std::string &name, std::string &payload) {
  const Args &a = ctx.args;
  if (!a.has("lane")) throw usage_error("schedule add: --lane is required");
  if (a.has("every") == a.has("cron")) throw usage_error("schedule add: give exactly one of --every and --cron");
  if (a.has("zone") && !a.has("cron")) throw usage_error("schedule add: --zone goes with --cron");
  require_group_name(a.get("lane"));
  echomq_schedule_options o = ECHOMQ_SCHEDULE_OPTIONS_INIT;
  const std::string lane = a.get("lane"), cron = a.get("cron"), zone = a.get("zone");
  o.lane = lane.c_str();
  if (a.has("every")) o.every_ms = parse_seconds_ms(a.get("every"), 1, ECHOMQ_SCHEDULE_EVERY_MAX_MS, "--every");
  if (a.has("cron")) o.cron = cron.c_str();
  if (a.has("zone")) o.zone = zone.c_str();
  payload = a.get("payload");
  if (payload == "-") payload = read_stdin();
  if (payload.size() > ECHOMQ_DEFAULT_MAX_PAYLOAD) throw usage_error("schedule add: the payload is over the limit");
  o.payload = payload.data();
  o.payload_len = payload.size();
  if (a.has("max-attempts"))
    o.max_attempts = static_cast<uint32_t>(parse_uint(a.get("max-attempts"), 1, ECHOMQ_ATTEMPTS_MAX, "--max-attempts"));
  if (a.has("keep")) o.keep_ms = parse_seconds_ms(a.get("keep"), 1, ECHOMQ_KEEP_MAX_MS, "--keep");
  if (a.has("keep-last")) o.keep_last = parse_uint(a.get("keep-last"), 1, ECHOMQ_KEEP_LAST_MAX, "--keep-last");
  if (a.has("cost-estimate"))
    o.cost_estimate = parse_uint(a.get("cost-estimate"), 1, static_cast<uint64_t>(ECHOMQ_ID_MAX), "--cost-estimate");
  if (a.has("start")) o.start_at_ms = parse_rfc3339_ms(a.get("start"), "--start");
  if (a.has("end")) o.end_at_ms = parse_rfc3339_ms(a.get("end"), "--end");
  if (a.has("limit")) o.limit = parse_uint(a.get("limit"), 1, static_cast<uint64_t>(ECHOMQ_ID_MAX), "--limit");
  const std::string missed = a.get("missed", "once"), overlap = a.get("overlap", "fire");
  if (missed != "once" && missed != "skip") throw usage_error("schedule add: --missed must be once or skip");
  if (overlap != "fire" && overlap != "skip") throw usage_error("schedule add: --overlap must be fire or skip");
  o.missed = missed == "skip" ? ECHOMQ_MISSED_SKIP : ECHOMQ_MISSED_FIRE_ONCE;
  o.overlap = overlap == "skip" ? ECHOMQ_OVERLAP_SKIP : ECHOMQ_OVERLAP_FIRE;
  if (a.has("grace")) {
    if (missed != "skip") throw usage_error("schedule add: --grace goes with --missed skip");
    o.grace_ms = parse_seconds_ms(a.get("grace"), 1, ECHOMQ_DELAY_MAX_MS, "--grace");
  }
  int changed = 0;
  int64_t next = 0;
  ctx.session.check(echomq_schedule_upsert(ctx.session.client(), ctx.session.q(), name.c_str(), &o, &changed, &next),
                    "schedule add");
  const char *what = changed == ECHOMQ_SCHEDULE_CREATED   ? "created"
                     : changed == ECHOMQ_SCHEDULE_UPDATED ? "updated"
                                                          : "unchanged";
  if (ctx.json) {
    Json j;
    j.begin_object().key("name").str(name).key("changed").str(what).key("next");
    if (next) j.str(format_rfc3339(next));
    else j.null();
    j.end_object();
    print(j.text() + "\n");
  } else {
    print("schedule " + name + " " + what + (next ? "; next tick " + format_rfc3339(next) : "") + "\n");
  }
  return kExitOk;
}

const char *state_word(int s) {
  switch (s) {
    case ECHOMQ_JOB_PENDING: return "pending";
    case ECHOMQ_JOB_LEASED: return "running";
    case ECHOMQ_JOB_DELAYED: return "retrying";
    case ECHOMQ_JOB_DEAD: return "dead";
    case ECHOMQ_JOB_COMPLETED: return "completed";
    default: return "done";
  }
}

std::string timing(const echomq_schedule_info &s) {
  if (s.every_ms) return "every " + human_duration(s.every_ms);
  std::string t = std::string("cron '") + s.cron + "'";
  if (std::string(s.zone) != "UTC") t += std::string(" ") + s.zone;
  return t;
}

void info_json(Json &j, const echomq_schedule_info &s) {
  auto time = [&](const char *k, int64_t ms) {
    j.key(k);
    if (ms) j.str(format_rfc3339(ms));
    else j.null();
  };
  j.begin_object().key("name").str(s.name);
  j.key("every_ms").num(s.every_ms).key("cron").str(s.cron).key("zone").str(s.zone).key("lane").str(s.lane);
  std::string_view p(s.payload, s.payload_len);
  if (utf8_valid(p)) j.key("payload").str(p);
  else j.key("payload_base64").str(base64(p));
  j.key("paused").boolean(s.paused != 0).key("ended").str(s.ended);
  time("next", s.next_at_ms);
  time("last_tick", s.last_tick_ms);
  time("fired_tick", s.fired_tick_ms);
  time("fired_at", s.fired_at_ms);
  j.key("lateness_ms");
  if (s.fired_at_ms) j.num(s.fired_at_ms - s.fired_tick_ms);
  else j.null();
  j.key("fired_job").num(s.fired_job).key("last_outcome");
  if (s.fired_job) j.str(state_word(s.fired_state));
  else j.null();
  j.key("runs").num(s.runs).key("skips").num(s.skips);
  j.key("missed").str(s.missed == ECHOMQ_MISSED_SKIP ? "skip" : "once");
  j.key("overlap").str(s.overlap == ECHOMQ_OVERLAP_SKIP ? "skip" : "fire");
  j.key("limit").num(s.limit);
  time("start", s.start_at_ms);
  time("end", s.end_at_ms);
  j.end_object();
}

int cmd_ls(Context &ctx) {
  std::vector<echomq::ScheduleListPtr> pages;
  std::string after;
  for (;;) {
    echomq_schedule_list *raw = nullptr;
    ctx.session.check(echomq_schedules(ctx.session.client(), ctx.session.q(), after.c_str(), 1000, &raw),
                      "schedule ls");
    pages.emplace_back(raw);
    const char *next = echomq_schedule_list_next(raw);
    if (!next) break;
    after = next;
  }
  if (ctx.json) {
    Json j;
    j.begin_array();
    for (auto &p : pages)
      for (size_t i = 0; i < echomq_schedule_list_count(p.get()); ++i) info_json(j, *echomq_schedule_list_at(p.get(), i));
    j.end_array();
    print(j.text() + "\n");
    return kExitOk;
  }
  Table t({"NAME", "TIMING", "LANE", "NEXT", "LAST FIRED", "OUTCOME", "LATE", "RUNS", "SKIPS", "STATE"},
          {false, false, false, false, false, false, true, true, true, false});
  size_t n = 0;
  for (auto &p : pages)
    for (size_t i = 0; i < echomq_schedule_list_count(p.get()); ++i, ++n) {
      const echomq_schedule_info &s = *echomq_schedule_list_at(p.get(), i);
      std::string state = s.paused ? "paused" : *s.ended ? std::string("ended (") + s.ended + ")" : "armed";
      t.add({fit_width(s.name, 32), fit_width(timing(s), 40), fit_width(s.lane, 24),
             s.next_at_ms && !*s.ended ? format_rfc3339(s.next_at_ms) : "-",
             s.fired_tick_ms ? format_rfc3339(s.fired_tick_ms) : "-", s.fired_job ? state_word(s.fired_state) : "-",
             s.fired_at_ms ? human_duration(s.fired_at_ms - s.fired_tick_ms) : "-", grouped(s.runs), grouped(s.skips),
             state});
    }
  if (n == 0) {
    print("no schedules in queue '" + ctx.session.queue() + "'\n");
    return kExitOk;
  }
  std::string out;
  for (const auto &line : t.lines()) out += line + "\n";
  print(out);
  return kExitOk;
}

int cmd_next(Context &ctx, const std::string &name) {
  size_t n = parse_uint(ctx.args.get("count", "5"), 1, ECHOMQ_SCHEDULE_NEXT_MAX, "--count");
  std::vector<int64_t> times(n);
  size_t got = 0;
  ctx.session.check(echomq_schedule_next(ctx.session.client(), ctx.session.q(), name.c_str(), n, times.data(), &got),
                    "schedule next");
  if (ctx.json) {
    Json j;
    j.begin_array();
    for (size_t i = 0; i < got; ++i) j.str(format_rfc3339(times[i]));
    j.end_array();
    print(j.text() + "\n");
    return kExitOk;
  }
  std::string out;
  for (size_t i = 0; i < got; ++i) out += format_rfc3339(times[i]) + "\n";
  if (got == 0) out = "schedule " + name + " has no tick ahead (ended)\n";
  print(out);
  return kExitOk;
}

int cmd_schedule(Context &ctx) {
  const auto &pos = ctx.args.positionals();
  const std::string sub = pos[0];
  const bool named = sub == "add" || sub == "rm" || sub == "pause" || sub == "resume" || sub == "next";
  if (!named && sub != "ls") throw usage_error("schedule: unknown subcommand '" + sub + "' (" + kSubcommands + ")");
  if (named && pos.size() != 2) throw usage_error("schedule " + sub + ": give the schedule's NAME");
  if (!named && pos.size() != 1) throw usage_error("schedule ls takes no argument");
  if (sub != "add")
    for (const char *o : kSpecOptions)
      if (ctx.args.has(o)) throw usage_error("schedule " + sub + ": --" + o + " goes with 'schedule add'");
  if (sub != "next" && ctx.args.has("count")) throw usage_error("schedule " + sub + ": --count goes with 'schedule next'");
  const std::string name = named ? pos[1] : std::string();
  if (named) require_schedule_name(name);
  if (sub == "add") {
    std::string payload;
    return cmd_add(ctx, name, payload);
  }
  if (sub == "ls") return cmd_ls(ctx);
  if (sub == "next") return cmd_next(ctx, name);
  echomq_client *c = ctx.session.client();
  int rc = sub == "rm"      ? echomq_schedule_remove(c, ctx.session.q(), name.c_str())
           : sub == "pause" ? echomq_schedule_pause(c, ctx.session.q(), name.c_str())
                            : echomq_schedule_resume(c, ctx.session.q(), name.c_str());
  ctx.session.check(rc, "schedule " + sub);
  const char *done = sub == "rm" ? "removed" : sub == "pause" ? "paused" : "resumed";
  if (ctx.json) {
    Json j;
    j.begin_object().key("name").str(name).key(done).boolean(true).end_object();
    print(j.text() + "\n");
  } else {
    print("schedule " + name + " " + done + "\n");
  }
  return kExitOk;
}

}  // namespace

void add_schedule_commands(std::vector<Command> &out) {
  out.push_back(
      {"schedule", "add|rm|ls|pause|resume|next [NAME]", "periodic jobs: add, remove, list, pause, resume, next ticks",
       "schedule add NAME --lane L (--every S | --cron EXPR [--zone Z]) [options]\n"
       "  creates the schedule or changes it; the same spec again changes nothing.\n"
       "  --cron takes 5 fields (minute hour day-of-month month day-of-week) or 6\n"
       "  (seconds first), or @hourly, @daily, @weekly, @monthly, @yearly. --zone:\n"
       "  UTC (default), an offset such as +05:30, or an IANA name (Europe/Paris).\n"
       "schedule rm|pause|resume NAME\n"
       "schedule ls        each schedule: its timing, next tick, last fired tick,\n"
       "                   that tick's job (outcome), how late it fired, runs, skips\n"
       "schedule next NAME [--count N]   the next N ticks as the server computes them\n"
       "Times print in RFC 3339, UTC. Each tick is fired by a claim (a worker)\n"
       "once it is due: no scheduler process (docs/operations.md, Periodic jobs).",
       {{"lane", 0, "L", "add: the lane of each tick's job"},
        {"every", 0, "S", "add: a tick every S seconds (decimals allowed)"},
        {"cron", 0, "EXPR", "add: a cron expression"},
        {"zone", 0, "Z", "add: the zone --cron is read in (default UTC)"},
        {"payload", 0, "P", "add: each job's payload ('-' = standard input; default empty)"},
        {"max-attempts", 0, "N", "add: attempts of each job (default: the queue's)"},
        {"keep", 0, "S", "add: keep each completed job's outcome S seconds"},
        {"keep-last", 0, "N", "add: keep it among the last N completed"},
        {"cost-estimate", 0, "N", "add: each job's cost estimate (cost mode)"},
        {"start", 0, "T", "add: no tick before T (RFC 3339)"},
        {"end", 0, "T", "add: no tick after T (RFC 3339)"},
        {"limit", 0, "N", "add: end after N fired ticks"},
        {"missed", 0, "once|skip", "add: ticks nobody claimed in time: fire the latest once (default) or skip"},
        {"grace", 0, "S", "add: with --missed skip, how late a tick may still fire (default 1)"},
        {"overlap", 0, "fire|skip", "add: a tick while the last tick's job waits or runs: fire (default) or skip"},
        {"count", 'n', "N", "next: how many ticks (default 5)"}},
       1, 2, true, cmd_schedule});
}

}  // namespace emqcli
