// Outcomes: wait for a job, follow the event stream, set retention and
// events (docs/cli.md, docs/operations.md "Outcomes").
#include <cstdint>
#include <memory>
#include <string>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"

namespace emqcli {
namespace {

using EventListPtr = std::unique_ptr<echomq_event_list, void (*)(echomq_event_list *)>;

int cmd_wait(Context &ctx) {
  uint64_t id = parse_uint(ctx.args.positionals()[0], 1, ECHOMQ_ID_MAX, "ID");
  int64_t timeout = parse_seconds_ms(ctx.args.get("timeout", "30"), 0, 24LL * 3600 * 1000, "--timeout");
  echomq_job *raw = nullptr;
  int rc = echomq_wait_job(ctx.session.client(), ctx.session.q(), id, timeout, &raw);
  JobPtr job(raw);
  if (rc == ECHOMQ_PENDING) {
    if (ctx.json) print("null\n");
    throw CliError(kExitPending, "wait: job " + std::to_string(id) + " had not finished after " +
                                     human_duration(timeout));
  }
  if (rc == ECHOMQ_ENOTFOUND) {
    if (ctx.json) print("null\n");
    throw CliError(kExitNotFound, "wait: no job " + std::to_string(id) + " in queue '" + ctx.session.queue() +
                                      "' (finished and not retained, deleted, or never enqueued)");
  }
  ctx.session.check(rc, "wait for job " + std::to_string(id));
  show_job(ctx, job.get());
  return echomq_job_state_of(job.get()) == ECHOMQ_JOB_DEAD ? kExitDead : kExitOk;
}

// Fields whose values are numbers in the event format (docs/keys.md,
// "Events"): JSON gives them as numbers, or null when empty (`id` of a
// purge or a setting). Every other value stays a string (a lane may be "42").
bool numeric_event_field(const std::string &name) {
  return name == "id" || name == "attempt" || name == "time" || name == "retry" || name == "count";
}

bool decimal(std::string_view v) {
  if (v.empty() || v.size() > 19 || (v.size() > 1 && v[0] == '0')) return false;
  for (char ch : v)
    if (ch < '0' || ch > '9') return false;
  return true;
}

// One event as a line: its stream id, then name=value pairs (JSON: an object).
std::string event_line(const Context &ctx, const echomq_event_list *l, size_t i) {
  const size_t n = echomq_event_list_nfields(l, i);
  if (ctx.json) {
    Json j;
    j.begin_object().key("stream_id").str(echomq_event_list_id(l, i));
    for (size_t k = 0; k < n; ++k) {
      size_t len = 0;
      const char *v = echomq_event_list_value(l, i, k, &len);
      std::string_view val(v, len);
      std::string name = echomq_event_list_name(l, i, k);
      if (numeric_event_field(name) && val.empty()) j.key(name).null();
      else if (numeric_event_field(name) && decimal(val)) j.key(name).num(static_cast<uint64_t>(std::stoull(std::string(val))));
      else if (utf8_valid(val)) j.key(name).str(val);
      else j.key(name + "_base64").str(base64(val));
    }
    j.end_object();
    return j.text() + "\n";
  }
  std::string out = echomq_event_list_id(l, i);
  for (size_t k = 0; k < n; ++k) {
    size_t len = 0;
    const char *v = echomq_event_list_value(l, i, k, &len);
    out += std::string(" ") + echomq_event_list_name(l, i, k) + "=" + display_bytes(std::string_view(v, len), 200);
  }
  return out + "\n";
}

echomq_outcome_settings outcome_settings(Context &ctx) {
  echomq_outcome_settings o{};
  o.version = ECHOMQ_OUTCOME_SETTINGS_VERSION;
  ctx.session.check(echomq_get_outcomes(ctx.session.client(), ctx.session.q(), &o), "outcome settings");
  return o;
}

int cmd_events(Context &ctx) {
  std::string after = ctx.args.get("from", ctx.args.has("follow") ? "$" : "0");
  const bool follow = ctx.args.has("follow");
  // A stream that is off records nothing: say so (and how to turn it on)
  // rather than print nothing, or wait forever with --follow. What a stream
  // turned off still holds is printed first.
  const bool off = outcome_settings(ctx).events_max_len == 0;
  const std::string how = "; turn it on with 'echomq -q " + ctx.session.queue() + " outcomes --events 100000'";
  if (off && follow)
    throw CliError(kExitOff, "events: the event stream of queue '" + ctx.session.queue() + "' is off" + how);
  for (;;) {
    echomq_event_list *raw = nullptr;
    ctx.session.check(echomq_events_read(ctx.session.client(), ctx.session.q(), after.c_str(), 1000,
                                         follow ? 5000 : 0, &raw),
                      "events");
    EventListPtr l(raw, echomq_event_list_free);
    const size_t n = echomq_event_list_count(l.get());
    std::string out;
    for (size_t i = 0; i < n; ++i) out += event_line(ctx, l.get(), i);
    if (n > 0) {
      print(out);
      after = echomq_event_list_id(l.get(), n - 1);
    } else if (off) {
      throw CliError(kExitOff, "events: the event stream of queue '" + ctx.session.queue() + "' is off" + how);
    } else if (!follow) {
      return kExitOk;
    }
  }
}

int cmd_progress(Context &ctx) {
  const auto &pos = ctx.args.positionals();
  uint64_t id = parse_uint(pos[0], 1, ECHOMQ_ID_MAX, "ID");
  uint64_t token = parse_uint(pos[1], 1, ECHOMQ_ID_MAX, "TOKEN");
  const std::string &value = pos[2];
  ctx.session.check(echomq_progress(ctx.session.client(), ctx.session.q(), id, token, value.data(), value.size()),
                    "progress of job " + std::to_string(id));
  if (ctx.json) {
    Json j;
    j.begin_object().key("id").num(id);
    if (utf8_valid(value)) j.key("progress").str(value);
    else j.key("progress_base64").str(base64(value));
    j.end_object();
    print(j.text() + "\n");
  }
  else {
    print("job " + std::to_string(id) + " progress " + display_bytes(value, 200) + "\n");
  }
  return kExitOk;
}

int cmd_outcomes(Context &ctx) {
  echomq_client *c = ctx.session.client();
  bool changed = false;
  if (ctx.args.has("no-retention")) {
    ctx.session.check(echomq_clear_retention(c, ctx.session.q()), "outcomes --no-retention");
    changed = true;
  } else if (ctx.args.has("keep") || ctx.args.has("last")) {
    int64_t keep = ctx.args.has("keep") ? parse_seconds_ms(ctx.args.get("keep"), 1, ECHOMQ_KEEP_MAX_MS, "--keep") : 0;
    uint64_t last = ctx.args.has("last") ? parse_uint(ctx.args.get("last"), 1, ECHOMQ_KEEP_LAST_MAX, "--last") : 0;
    ctx.session.check(echomq_set_retention(c, ctx.session.q(), keep, last), "outcomes --keep/--last");
    changed = true;
  }
  if (ctx.args.has("no-events")) {
    ctx.session.check(echomq_clear_events(c, ctx.session.q()), "outcomes --no-events");
    changed = true;
  } else if (ctx.args.has("events")) {
    uint64_t len = parse_uint(ctx.args.get("events"), 1, ECHOMQ_EVENTS_MAXLEN_MAX, "--events");
    int flags = ctx.args.has("events-enqueued") ? ECHOMQ_EVENTS_ENQUEUED : 0;
    ctx.session.check(echomq_set_events(c, ctx.session.q(), len, flags), "outcomes --events");
    changed = true;
  }
  if (ctx.args.has("events-enqueued") && !ctx.args.has("events"))
    throw usage_error("outcomes: --events-enqueued goes with --events N");
  // Without options it only shows them (as cost-mode and defaults do);
  // after a change it shows them as they now are.
  const echomq_outcome_settings o = outcome_settings(ctx);
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue()).key("changed").boolean(changed);
    j.key("retention");
    if (o.keep_ms == 0 && o.keep_last == 0) {
      j.null();
    } else {
      j.begin_object().key("keep_s");
      if (o.keep_ms == 0) j.null();
      else j.num(static_cast<double>(o.keep_ms) / 1000.0);
      j.key("last");
      if (o.keep_last == 0) j.null();
      else j.num(o.keep_last);
      j.end_object();
    }
    j.key("events");
    if (o.events_max_len == 0) j.null();
    else j.begin_object().key("max_len").num(o.events_max_len).key("enqueued").boolean(o.events_flags & ECHOMQ_EVENTS_ENQUEUED).end_object();
    j.end_object();
    print(j.text() + "\n");
    return kExitOk;
  }
  std::string keep = "off";
  if (o.keep_ms > 0 || o.keep_last > 0) {
    keep.clear();
    if (o.keep_ms > 0) keep = "for " + human_duration(o.keep_ms);
    if (o.keep_last > 0) keep += std::string(keep.empty() ? "" : ", ") + "the last " + grouped(o.keep_last);
  }
  std::string events = o.events_max_len == 0
                           ? "off"
                           : "on, about " + grouped(o.events_max_len) + " entries" +
                                 ((o.events_flags & ECHOMQ_EVENTS_ENQUEUED) ? ", enqueues too" : "");
  print("queue      " + ctx.session.queue() + "\nretention  " + keep + "\nevents     " + events + "\n");
  return kExitOk;
}

}  // namespace

void add_outcome_commands(std::vector<Command> &out) {
  out.push_back({"wait", "ID [--timeout SECONDS]", "wait for a job to complete or die, and show it",
                 "Blocks on the server (no polling) until the job completes or dies, or at once\n"
                 "if it has; --timeout 0 does not wait. Exits 0 when it completed, 13 when it\n"
                 "died, 12 when it had not finished in time, 4 when there is no such job. A job\n"
                 "that finished without a retention can only be waited for by a waiter that\n"
                 "began before it finished.",
                 {{"timeout", 0, "SECONDS", "how long to wait (default 30; 0 = do not wait)"}}, 1, 1, true,
                 cmd_wait});
  out.back().exits = "4 no such job, 12 not finished in time, 13 the job died";
  out.push_back({"events", "[--follow] [--from STREAM_ID]", "print the queue's event stream",
                 "One line per event (--json: one JSON object per line): its stream id, then\n"
                 "type, id, lane, attempt, time and the type's own fields (docs/keys.md,\n"
                 "\"Events\"). Without --follow it prints what the stream holds and ends; with\n"
                 "it, it prints new events as they come until interrupted. Turn the stream on\n"
                 "with 'outcomes --events N': on a queue whose stream is off it says so and\n"
                 "exits 14 (after what the stream still holds, if anything).",
                 {{"follow", 0, nullptr, "wait for new events (from now, unless --from)"},
                  {"from", 0, "STREAM_ID", "start after this stream id (0 = the oldest kept)"}},
                 0, 0, true, cmd_events});
  out.back().exits = "14 the event stream is off";
  out.push_back({"progress", "ID TOKEN VALUE", "report a leased job's progress (shown by 'job', an event)",
                 "VALUE is at most 1024 bytes. Exits 5 when the token is stale (the lease was\n"
                 "lost), 4 when the job is gone.",
                 {}, 3, 3, true, cmd_progress});
  out.back().exits = "4 no such job, 5 stale token (the lease was lost)";
  out.push_back({"outcomes", "[--keep SECONDS] [--last N] [--no-retention] [--events N [--events-enqueued]] [--no-events]",
                 "show or set the queue's retention of completed jobs and its event stream",
                 "Without options it only shows them; after a change it shows them as they are.\n"
                 "--keep and --last keep the outcome (state, times, attempts, result) of jobs\n"
                 "that complete from now on, for that long and/or while among the last N;\n"
                 "--events N writes the event stream, kept near N entries (--events-enqueued:\n"
                 "every enqueue too, the costly one).",
                 {{"keep", 0, "SECONDS", "keep outcomes this long"},
                  {"last", 0, "N", "keep the last N outcomes"},
                  {"no-retention", 0, nullptr, "stop retaining outcomes"},
                  {"events", 0, "N", "write the event stream, about N entries long"},
                  {"events-enqueued", 0, nullptr, "with --events: enqueues are events too"},
                  {"no-events", 0, nullptr, "stop writing the event stream"}},
                 0, 0, true, cmd_outcomes});
}

}  // namespace emqcli
