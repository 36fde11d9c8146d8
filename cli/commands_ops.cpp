// Everyday operations: job (look a job up), delete, purge, queues, shards.
#include <cstdint>
#include <string>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "views.hpp"

namespace emqcli {

const char *state_word(int state) {
  switch (state) {
    case ECHOMQ_JOB_PENDING: return "pending";
    case ECHOMQ_JOB_WAITING: return "waiting";
    case ECHOMQ_JOB_LEASED: return "leased";
    case ECHOMQ_JOB_DELAYED: return "delayed";
    case ECHOMQ_JOB_DEAD: return "dead";
    case ECHOMQ_JOB_COMPLETED: return "completed";
    default: return "unknown";
  }
}

namespace {

// Bytes as a JSON member: text when valid UTF-8, else base64 under <key>_base64.
void bytes_member(Json &j, const std::string &key, std::string_view v) {
  if (utf8_valid(v)) j.key(key).str(std::string(v));
  else j.key(key + "_base64").str(base64(v));
}

std::string ms_or_null(int64_t ms) { return ms ? std::to_string(ms) : "null"; }

uint64_t job_id_arg(const Context &ctx) {
  return parse_uint(ctx.args.positionals()[0], 1, ECHOMQ_ID_MAX, "ID");
}

}  // namespace

void show_job(Context &ctx, const echomq_job *j) {
  int state = echomq_job_state_of(j);
  size_t plen = 0, rlen = 0;
  const char *prog = echomq_job_progress(j, &plen);
  const char *res = echomq_job_result(j, &rlen);
  if (ctx.json) {
    // The job's fields, with its state, due time and outcome added.
    std::string body;
    {
      Json one;
      job_json(one, j);
      body = one.text();
    }
    Json more;
    more.begin_object();
    bytes_member(more, "progress", std::string_view(prog, plen));
    bytes_member(more, "result", std::string_view(res, rlen));
    more.key("result_dropped").str(echomq_job_result_dropped(j));
    more.key("name").str(echomq_job_name(j));
    more.key("headers").begin_object();
    for (size_t i = 0, n = echomq_job_header_count(j); i < n; ++i)
      more.key(echomq_job_header_key(j, i)).str(echomq_job_header_value(j, i));
    more.end_object();
    more.end_object();
    std::string m = more.text();
    std::string extra = ",\"state\":\"" + std::string(state_word(state)) + "\",\"due_at_ms\":" +
                        ms_or_null(echomq_job_due_at_ms(j)) + ",\"started_at_ms\":" +
                        ms_or_null(echomq_job_started_at_ms(j)) + ",\"finished_at_ms\":" +
                        ms_or_null(echomq_job_finished_at_ms(j)) + "," + m.substr(1, m.size() - 2);
    print(body.substr(0, body.size() - 1) + extra + flow_json_members(ctx, echomq_job_id(j)) + "}\n");
    return;
  }
  int64_t now = fetch_stats(ctx.session).server_time_ms;
  std::string when;
  if (state == ECHOMQ_JOB_LEASED) when = "lease ends in " + human_duration(echomq_job_lease_until_ms(j) - now);
  if (state == ECHOMQ_JOB_DELAYED) when = "due in " + human_duration(echomq_job_due_at_ms(j) - now);
  if (state == ECHOMQ_JOB_DEAD) when = "died " + human_duration(now - echomq_job_dead_at_ms(j)) + " ago";
  if (state == ECHOMQ_JOB_COMPLETED)
    when = "completed " + human_duration(now - echomq_job_finished_at_ms(j)) + " ago";
  std::string out = "id        " + std::to_string(echomq_job_id(j)) + "\n" +
                    "state     " + state_word(state) + (when.empty() ? "" : " (" + when + ")") + "\n" +
                    "lane      " + echomq_job_group(j) + "\n" +
                    (*echomq_job_name(j) ? "name      " + display_bytes(echomq_job_name(j), 200) + "\n" : "") +
                    "attempts  " + (echomq_job_token(j) == 0 ? "none yet, max " +
                                        std::to_string(echomq_job_max_attempts(j))
                                                                : attempt_text(j)) + "\n" +
                    "enqueued  " + human_duration(now - echomq_job_enqueued_at_ms(j)) + " ago\n";
  for (size_t i = 0, n = echomq_job_header_count(j); i < n; ++i)
    out += "header    " + display_bytes(echomq_job_header_key(j, i), 200) + ": " +
           display_bytes(echomq_job_header_value(j, i), 2000) + "\n";
  if (echomq_job_started_at_ms(j))
    out += "started   " + human_duration(now - echomq_job_started_at_ms(j)) + " ago\n";
  if (*echomq_job_last_error(j)) out += std::string("error     ") + display_bytes(echomq_job_last_error(j), 2000) + "\n";
  if (plen) out += "progress  " + display_bytes(std::string_view(prog, plen), 2000) + "\n";
  if (*echomq_job_result_dropped(j))
    out += std::string("result    dropped: ") + display_bytes(echomq_job_result_dropped(j), 2000) + "\n";
  else if (state == ECHOMQ_JOB_COMPLETED)
    out += "result    " + display_bytes(std::string_view(res, rlen), 2000) + "\n";
  else out += "payload   " + display_bytes(job_payload(j), 2000) + "\n";
  print(out + flow_text(ctx, echomq_job_id(j)));
}

namespace {

int cmd_job(Context &ctx) {
  uint64_t id = job_id_arg(ctx);
  echomq_job *raw = nullptr;
  int rc = echomq_get_job(ctx.session.client(), ctx.session.q(), id, &raw);
  JobPtr job(raw);
  if (rc == ECHOMQ_ENOTFOUND) {
    if (ctx.json) print("null\n");
    throw CliError(kExitNotFound, "job: no job " + std::to_string(id) + " in queue '" +
                                      ctx.session.queue() + "' (acked and not retained, deleted, or never enqueued)");
  }
  ctx.session.check(rc, "job " + std::to_string(id));
  show_job(ctx, job.get());
  return kExitOk;
}

int cmd_delete(Context &ctx) {
  uint64_t id = job_id_arg(ctx);
  int rc = echomq_delete_job(ctx.session.client(), ctx.session.q(), id);
  if (rc == ECHOMQ_ELEASED)
    throw CliError(kExitLeased, "delete: job " + std::to_string(id) +
                                    " is leased by a worker now; nothing was deleted (settle it or let its lease expire)");
  if (rc == ECHOMQ_EDEPENDS)
    throw CliError(kExitDepends, "delete: job " + std::to_string(id) + " is part of a flow that has not finished; " +
                                     "nothing was deleted (`flow delete " + std::to_string(id) + "` removes the flow whole)");
  ctx.session.check(rc, "delete job " + std::to_string(id));
  if (ctx.json) print("{\"id\":" + std::to_string(id) + ",\"deleted\":true}\n");
  else print("deleted job " + std::to_string(id) + "\n");
  return kExitOk;
}

int cmd_purge(Context &ctx) {
  const std::string group = ctx.args.positionals()[0];
  require_group_name(group, ECHOMQ_NAME_LANE);
  auto step = static_cast<uint32_t>(parse_uint(ctx.args.get("step", "10000"), 1, ECHOMQ_PURGE_MAX, "--step"));
  int clear = ctx.args.has("clear-settings") ? 1 : 0;
  uint64_t cursor = 0, total = 0, removed = 0;
  int more = 1;
  // Bounded work per call: loop until the lane has no waiting job left.
  while (more) {
    ctx.session.check(echomq_purge_lane(ctx.session.client(), ctx.session.q(), group.c_str(), step, clear,
                                        &cursor, &removed, &more),
                      "purge lane '" + group + "' (" + std::to_string(total) + " jobs deleted before this error)");
    total += removed;
  }
  if (ctx.json) {
    Json j;
    j.begin_object().key("group").str(group).key("deleted").num(total).key("settings_cleared").boolean(clear != 0);
    j.end_object();
    print(j.text() + "\n");
  } else {
    print("purged lane '" + display_bytes(group, 80) + "': " + grouped(total) + " waiting jobs deleted" +
          (clear ? ", settings cleared" : "") + "\n");
  }
  return kExitOk;
}

// A report's lines as a JSON array of strings.
void report_array(Json &j, const echomq_report *r) {
  j.begin_array();
  for (size_t i = 0; i < echomq_report_count(r); ++i) j.str(echomq_report_at(r, i));
  j.end_array();
}

// A report's lines as text, one per line.
std::string report_text(const echomq_report *r) {
  std::string out;
  for (size_t i = 0; i < echomq_report_count(r); ++i) out += std::string(echomq_report_at(r, i)) + "\n";
  return out;
}

int cmd_queues(Context &ctx) {
  echomq_report *raw = nullptr;
  ctx.session.check(echomq_queues(ctx.session.client(), &raw), "queues");
  ReportPtr r(raw);
  if (ctx.json) {
    Json j;
    report_array(j, r.get());
    print(j.text() + "\n");
  } else {
    print(report_text(r.get()));
  }
  return kExitOk;
}

// Lists a queue's shard queues; with --create N, first creates or opens it
// as a sharded queue over N shards.
int cmd_shards(Context &ctx) {
  if (ctx.args.has("create")) {
    auto n = static_cast<uint32_t>(parse_uint(ctx.args.get("create"), 1, ECHOMQ_SHARDS_MAX, "--create"));
    // ESHARDS exits 11 with the server's reason (the count it has, or a plain queue in use).
    ctx.session.check(echomq_shards_create(ctx.session.client(), ctx.session.q(), n),
                      "shards --create " + std::to_string(n));
  }
  echomq_report *raw = nullptr;
  ctx.session.check(echomq_shards(ctx.session.client(), ctx.session.q(), &raw), "shards");
  ReportPtr r(raw);
  const bool sharded = echomq_report_count(r.get()) > 0;
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue()).key("sharded").boolean(sharded).key("shards");
    report_array(j, r.get());
    j.end_object();
    print(j.text() + "\n");
  } else {
    print(sharded ? report_text(r.get()) : "plain queue (not sharded)\n");
  }
  return kExitOk;
}

}  // namespace

void add_ops_commands(std::vector<Command> &out) {
  out.push_back({"job", "ID", "look a job up by id: state, lane, attempts, times, last error, payload",
                 "A read-only call. Exits 4 when there is no such job.", {}, 1, 1, true, cmd_job});
  out.back().exits = "4 no such job";
  out.push_back({"delete", "ID", "delete a pending, delayed or dead job",
                 "Exits 10 when a worker holds the job now (nothing is deleted), 4 when there is no such job.",
                 {}, 1, 1, true, cmd_delete});
  out.back().exits = "4 no such job, 10 leased: a worker holds it, 15 part of an unfinished flow";
  out.push_back({"purge", "GROUP [--clear-settings] [--step N]", "delete every waiting job of a lane",
                 "Deletes the lane's pending and delayed jobs in bounded steps (one round trip\n"
                 "each); leased jobs run on and dead jobs stay. The lane's weight, limit, rate,\n"
                 "cap and pause stay unless --clear-settings.",
                 {{"clear-settings", 0, nullptr, "also clear the lane's own settings"},
                  {"step", 0, "N", "jobs per round trip, 1..10000 (default 10000)"}},
                 1, 1, true, cmd_purge});
  Command queues{"queues", "", "list the queues on the server (SCAN; no -q needed)",
                 "In a cluster, lists the queues of the node --url points at: run it per primary.",
                 {}, 0, 0, true, cmd_queues};
  queues.no_queue = true;
  out.push_back(queues);
  out.push_back({"shards", "[--create N]", "list a sharded queue's shard queues, or create it",
                 "Prints the shard queues one per line, in shard order, or 'plain queue' for a\n"
                 "queue that is not sharded. --create N first creates the queue as a sharded\n"
                 "queue over N shard queues (1..256), or opens it when it has N already; exits\n"
                 "11 when it is sharded with another count, or is a plain queue in use.",
                 {{"create", 0, "N", "create or open the queue as a sharded queue over N shards"}},
                 0, 0, true, cmd_shards});
  out.back().exits = "11 sharded with another count, or a plain queue in use";
}

}  // namespace emqcli
