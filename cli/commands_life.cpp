// `echomq cancel`, `echomq burst`, `echomq lifecycle`: a job's life past
// claim and settle (echomq/lifecycle.h). Every argument is checked before
// any I/O; enqueue's --timeout, --ttl, --expires-at and --expire-drop are
// read by lifecycle_options (cli/commands_jobs.cpp calls it).
#include <cstdint>
#include <string>
#include <vector>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"

namespace emqcli {

void lifecycle_options(const Args &a, echomq_enqueue_options &o) {
  if (a.has("timeout")) o.timeout_ms = parse_seconds_ms(a.get("timeout"), 1, ECHOMQ_TIMEOUT_MAX_MS, "--timeout");
  if (a.has("ttl") && a.has("expires-at")) throw usage_error("enqueue: give --ttl or --expires-at, not both");
  if (a.has("ttl")) o.ttl_ms = parse_seconds_ms(a.get("ttl"), 1, ECHOMQ_TTL_MAX_MS, "--ttl");
  if (a.has("expires-at")) o.expires_at_ms = parse_rfc3339_ms(a.get("expires-at"), "--expires-at");
  if (a.has("expire-drop")) {
    if (!a.has("ttl") && !a.has("expires-at")) throw usage_error("enqueue: --expire-drop needs --ttl or --expires-at");
    o.expire_flags = ECHOMQ_EXPIRE_DROP;
  }
}

namespace {

int cmd_cancel(Context &ctx) {
  const uint64_t id = parse_uint(ctx.args.positionals()[0], 1, static_cast<uint64_t>(ECHOMQ_ID_MAX), "ID");
  const std::string reason = ctx.args.get("reason");
  if (reason.size() > ECHOMQ_REASON_MAX || reason.find('\0') != std::string::npos)
    throw usage_error("cancel: --reason must be at most " + std::to_string(ECHOMQ_REASON_MAX) + " bytes");
  const unsigned flags = ctx.args.has("remove") ? ECHOMQ_CANCEL_REMOVE : 0;
  echomq_client *c = ctx.session.client();
  int was = 0;
  const int rc = echomq_cancel(c, ctx.session.q(), id, reason.c_str(), flags, &was);
  if (rc == ECHOMQ_EFINISHED)
    throw CliError(kExitFinished, "cancel: job " + std::to_string(id) + " has finished: nothing to cancel");
  ctx.session.check(rc, "cancel");
  const std::string state = state_word(was);
  const bool flow = was == ECHOMQ_JOB_WAITING;  // a flow's parent: its subtree went with it
  const char *what = was == ECHOMQ_JOB_LEASED ? "marked: it settles as canceled"
                     : was == ECHOMQ_JOB_DEAD ? "canceled before: nothing changed"
                     : flags != 0             ? (flow ? "removed, with the jobs below it that had not run" : "removed")
                     : flow ? "canceled: dead-lettered, with the jobs below it that had not run"
                            : "canceled: dead-lettered";
  if (ctx.json) {
    print("{\"id\":" + std::to_string(id) + ",\"was\":" + json_quote(state) + ",\"result\":" + json_quote(what) +
             "}" + "\n");
  } else {
    print("job " + std::to_string(id) + " (" + state + ") " + what + "\n");
  }
  return kExitOk;
}

int cmd_burst(Context &ctx) {
  const auto &p = ctx.args.positionals();
  require_group_name(p[0]);
  const uint32_t limit = static_cast<uint32_t>(parse_uint(p[1], 1, ECHOMQ_LIMIT_MAX, "LIMIT"));
  const uint32_t burst =
      p[2] == "none" ? 0 : static_cast<uint32_t>(parse_uint(p[2], limit, ECHOMQ_LIMIT_MAX, "BURST (at least LIMIT)"));
  ctx.session.check(echomq_set_limit_burst(ctx.session.client(), ctx.session.q(), p[0].c_str(), limit, burst), "burst");
  if (ctx.json) {
    print("{\"group\":" + json_quote(p[0]) + ",\"limit\":" + std::to_string(limit) +
             ",\"burst\":" + std::to_string(burst) + "}" + "\n");
  } else {
    print(display_bytes(p[0], 80) + ": limit " + std::to_string(limit) +
             (burst ? ", bursts to " + std::to_string(burst) : ", no burst") + "\n");
  }
  return kExitOk;
}

// --queue-rate JOBS/SECONDS[:BURST] or none.
void queue_rate(const std::string &v, uint32_t &jobs, int64_t &period, uint32_t &burst) {
  if (v == "none") return;
  const auto slash = v.find('/');
  if (slash == std::string::npos) throw usage_error("--queue-rate: give JOBS/SECONDS[:BURST] (e.g. 100/1) or none");
  const auto colon = v.find(':', slash);
  jobs = static_cast<uint32_t>(parse_uint(v.substr(0, slash), 1, ECHOMQ_RATE_JOBS_MAX, "--queue-rate jobs"));
  period = parse_seconds_ms(v.substr(slash + 1, colon == std::string::npos ? std::string::npos : colon - slash - 1), 1,
                            ECHOMQ_RATE_PERIOD_MAX_MS, "--queue-rate seconds");
  if (colon != std::string::npos)
    burst = static_cast<uint32_t>(parse_uint(v.substr(colon + 1), 1, ECHOMQ_RATE_JOBS_MAX, "--queue-rate burst"));
}

int cmd_lifecycle(Context &ctx) {
  const Args &a = ctx.args;
  // Every value checked before the first call.
  int64_t timeout = 0;
  if (a.has("timeout") && a.get("timeout") != "none")
    timeout = parse_seconds_ms(a.get("timeout"), 1, ECHOMQ_TIMEOUT_MAX_MS, "--timeout");
  uint32_t limit = 0, jobs = 0, burst = 0;
  int64_t period = 1000;
  if (a.has("queue-limit") && a.get("queue-limit") != "none")
    limit = static_cast<uint32_t>(parse_uint(a.get("queue-limit"), 1, ECHOMQ_LIMIT_MAX, "--queue-limit"));
  if (a.has("queue-rate")) queue_rate(a.get("queue-rate"), jobs, period, burst);
  echomq_client *c = ctx.session.client();
  const char *q = ctx.session.q();
  if (a.has("timeout")) ctx.session.check(echomq_set_default_timeout(c, q, timeout), "lifecycle --timeout");
  if (a.has("queue-limit")) ctx.session.check(echomq_set_queue_limit(c, q, limit), "lifecycle --queue-limit");
  if (a.has("queue-rate")) ctx.session.check(echomq_set_queue_rate(c, q, jobs, period, burst), "lifecycle --queue-rate");
  echomq_lifecycle_settings s{};
  s.version = ECHOMQ_LIFECYCLE_SETTINGS_VERSION;
  ctx.session.check(echomq_get_lifecycle(c, q, &s), "lifecycle");
  if (ctx.json) {
    print("{\"default_timeout_ms\":" + std::to_string(s.default_timeout_ms) +
             ",\"queue_limit\":" + std::to_string(s.queue_limit) + ",\"rate_jobs\":" + std::to_string(s.rate_jobs) +
             ",\"rate_period_ms\":" + std::to_string(s.rate_period_ms) +
             ",\"rate_burst\":" + std::to_string(s.rate_burst) + ",\"leased\":" + std::to_string(s.leased) + "}" + "\n");
    return kExitOk;
  }
  print("default timeout: " + (s.default_timeout_ms ? std::to_string(s.default_timeout_ms) + " ms" : "none") + "\n");
  print("queue limit:     " + (s.queue_limit ? std::to_string(s.queue_limit) : std::string("none")) + " (" +
           std::to_string(s.leased) + " leased)" + "\n");
  print("queue rate:      " + (s.rate_jobs ? std::to_string(s.rate_jobs) + " per " +
                                                    std::to_string(s.rate_period_ms) + " ms, burst " +
                                                    std::to_string(s.rate_burst)
                                              : std::string("none")) + "\n");
  return kExitOk;
}

}  // namespace

void add_lifecycle_commands(std::vector<Command> &out) {
  out.push_back({"cancel", "ID [--reason R] [--remove]", "cancel a job: it never runs again",
                 "A pending or delayed job is dead-lettered at once (last error \"canceled\"),\n"
                 "or removed with --remove. A leased one is marked: it settles as canceled at\n"
                 "its holder's next report, and a worker engine tells its handler at once.\n"
                 "A flow's parent waiting for its children goes with every job below it that\n"
                 "has not run (running ones are marked, finished ones stay).",
                 {{"reason", 0, "R", "why, kept in the last error (\"canceled: R\")"},
                  {"remove", 0, nullptr, "remove a waiting job whole instead of dead-lettering it"}},
                 1, 1, true, cmd_cancel});
  out.back().exits = "4 no such job, 16 the job has finished";
  out.push_back({"burst", "GROUP LIMIT BURST|none", "set a lane's limit and the burst ceiling above it",
                 "At or above LIMIT jobs leased, below BURST, the lane (or tenant T/) is served\n"
                 "only when no lane below its own limit has work. 'limit GROUP none' clears both.",
                 {}, 3, 3, true, cmd_burst});
  out.push_back({"lifecycle", "[--timeout S|none] [--queue-limit N|none] [--queue-rate J/S[:B]|none]",
                 "show or set the default time limit and the queue-wide ceiling and rate", "",
                 {{"timeout", 0, "S", "default time limit of an attempt, seconds, or none"},
                  {"queue-limit", 0, "N", "jobs leased at once across all lanes, or none"},
                  {"queue-rate", 0, "J/S[:B]", "job starts per S seconds across all lanes (burst B), or none"}},
                 0, 0, true, cmd_lifecycle});
}

}  // namespace emqcli
