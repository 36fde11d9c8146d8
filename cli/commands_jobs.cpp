// Job commands: enqueue (one, or many with --lines), claim, ack, fail, redrive.
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "views.hpp"

namespace emqcli {
namespace {

void check_payload_size(size_t len, const std::string &where) {
  if (len > ECHOMQ_DEFAULT_MAX_PAYLOAD)
    throw usage_error(where + "payload is " + grouped(len) + " bytes, over the limit of " +
                      grouped(ECHOMQ_DEFAULT_MAX_PAYLOAD));
}

// --name and --header K=V (repeatable): the strings stay in Args and here,
// both alive for the enqueue call. The library checks their limits and
// bytes before any I/O; the CLI checks only the K=V shape.
struct JobMeta {
  std::vector<std::string> keys;
  std::vector<echomq_header> headers;
};

void job_meta(const Args &a, echomq_enqueue_options &o, JobMeta &m) {
  if (a.has("name")) {
    if (a.get("name").empty()) throw usage_error("enqueue: --name is empty");
    o.name = a.values_.at("name").c_str();  // the stored string: get() returns a copy
  }
  const auto &given = a.all("header");
  m.keys.reserve(given.size());  // no reallocation: headers point into keys
  for (const std::string &kv : given) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw usage_error("enqueue: --header takes KEY=VALUE, got '" + display_bytes(kv, 80) + "'");
    for (const std::string &k : m.keys)
      if (k == kv.substr(0, eq)) throw usage_error("enqueue: --header " + k + " is given twice");
    m.keys.push_back(kv.substr(0, eq));
    m.headers.push_back({m.keys.back().c_str(), kv.c_str() + eq + 1});
  }
  o.headers = m.headers.empty() ? nullptr : m.headers.data();
  o.header_count = m.headers.size();
}

echomq_enqueue_options enqueue_options(const Args &a) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  if (a.has("dedup-window") && !a.has("key")) throw usage_error("enqueue: --dedup-window needs --key");
  if (a.has("key")) {
    const std::string &k = a.values_.at("key");  // the stored string (get() returns a copy)
    if (k.empty() || k.size() > ECHOMQ_DEDUP_KEY_MAX || k.find('\0') != std::string::npos)
      throw usage_error("enqueue: --key must be 1.." + std::to_string(ECHOMQ_DEDUP_KEY_MAX) + " bytes");
    o.idempotency_key = k.c_str();  // Args outlives the call
  }
  if (a.has("dedup-window"))
    o.dedup_window_ms = parse_seconds_ms(a.get("dedup-window"), 1, ECHOMQ_DEDUP_WINDOW_MAX_MS, "--dedup-window");
  if (a.has("delay")) o.delay_ms = parse_seconds_ms(a.get("delay"), 0, ECHOMQ_DELAY_MAX_MS, "--delay");
  if (a.has("at") && a.has("delay")) throw usage_error("enqueue: give --delay or --at, not both");
  if (a.has("at")) o.at_ms = parse_rfc3339_ms(a.get("at"), "--at");
  if (a.has("max-attempts"))
    o.max_attempts = static_cast<uint32_t>(
        parse_uint(a.get("max-attempts"), 1, ECHOMQ_ATTEMPTS_MAX, "--max-attempts"));
  if (a.has("cost-estimate"))
    o.cost_estimate = parse_uint(a.get("cost-estimate"), 1, static_cast<uint64_t>(ECHOMQ_ID_MAX), "--cost-estimate");
  lifecycle_options(a, o);
  return o;
}

// --lines: every line of stdin is one job. With GROUP "-" a line is
// "GROUP<TAB>PAYLOAD", so one load can fill many lanes. Everything is parsed
// and validated into batches before the first byte goes to the server.
int enqueue_lines(Context &ctx, const std::string &group, const echomq_enqueue_options &opts) {
  size_t chunk = parse_uint(ctx.args.get("chunk", "1000"), 1, ECHOMQ_BATCH_MAX, "--chunk");
  std::string input = read_stdin();
  std::vector<BatchPtr> batches;
  size_t total = 0, line_no = 0;
  for (size_t pos = 0; pos < input.size();) {
    size_t end = input.find('\n', pos);
    if (end == std::string::npos) end = input.size();
    std::string line = input.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = "enqueue: line " + std::to_string(line_no) + ": ";
    std::string g = group, payload = line;
    if (group == "-") {
      size_t tab = line.find('\t');
      if (tab == std::string::npos) throw usage_error(where + "expected GROUP<TAB>PAYLOAD");
      g = line.substr(0, tab);
      payload = line.substr(tab + 1);
    }
    char why[512];
    if (echomq_check_name(ECHOMQ_NAME_LANE, g.data(), g.size(), why, sizeof why) != ECHOMQ_OK)
      throw usage_error(where + why);
    check_payload_size(payload.size(), where);
    if (batches.empty() || echomq_batch_count(batches.back().get()) >= chunk) {
      batches.emplace_back(echomq_batch_create());
      if (!batches.back()) throw CliError(kExitFailure, "out of memory");
    }
    int rc = echomq_batch_add(batches.back().get(), g.c_str(), payload.data(), payload.size());
    if (rc != ECHOMQ_OK) throw usage_error(where + echomq_strerror(rc));
    ++total;
  }
  uint64_t first = 0, last = 0;
  size_t done = 0;
  for (auto &b : batches) {
    int rc = echomq_enqueue_batch(ctx.session.client(), ctx.session.q(), b.get(), &opts);
    if (rc != ECHOMQ_OK)
      ctx.session.check(rc, "enqueue: " + std::to_string(done) + " of " + std::to_string(total) +
                                " jobs enqueued before this error");
    size_t n = echomq_batch_count(b.get());
    if (first == 0) first = echomq_batch_id(b.get(), 0);
    last = echomq_batch_id(b.get(), n - 1);
    done += n;
  }
  if (ctx.json) {
    Json j;
    j.begin_object().key("enqueued").num(static_cast<uint64_t>(done));
    j.key("first_id");
    if (done == 0) j.null();
    else j.num(first);
    j.key("last_id");
    if (done == 0) j.null();
    else j.num(last);
    j.end_object();
    print(j.text() + "\n");
  } else if (done == 0) {
    print("enqueued 0 jobs\n");
  } else {
    print("enqueued " + grouped(done) + " jobs (ids " + std::to_string(first) + ".." +
          std::to_string(last) + ")\n");
  }
  return kExitOk;
}

int cmd_enqueue(Context &ctx) {
  const auto &pos = ctx.args.positionals();
  const std::string group = pos[0];
  echomq_enqueue_options opts = enqueue_options(ctx.args);
  JobMeta meta;
  job_meta(ctx.args, opts, meta);
  if (ctx.args.has("lines")) {
    if (ctx.args.has("key")) throw usage_error("enqueue: --key takes one job (not --lines)");
    if (pos.size() > 1 && pos[1] != "-")
      throw usage_error("enqueue: --lines reads payloads from standard input; drop '" + pos[1] + "'");
    if (group != "-") require_group_name(group, ECHOMQ_NAME_LANE);
    return enqueue_lines(ctx, group, opts);
  }
  if (ctx.args.has("chunk")) throw usage_error("enqueue: --chunk needs --lines");
  require_group_name(group, ECHOMQ_NAME_LANE);
  std::string payload = pos.size() > 1 ? (pos[1] == "-" ? read_stdin() : pos[1]) : std::string();
  check_payload_size(payload.size(), "enqueue: ");
  uint64_t id = 0;
  int rc = echomq_enqueue(ctx.session.client(), ctx.session.q(), group.c_str(), payload.data(),
                          payload.size(), &opts, &id);
  bool dup = rc == ECHOMQ_DUPLICATE;
  if (!dup) ctx.session.check(rc, "enqueue");
  if (ctx.json) {
    Json j;
    j.begin_object().key("id").num(id).key("group").str(group);
    if (opts.idempotency_key) j.key("duplicate").boolean(dup);
    j.end_object();
    print(j.text() + "\n");
  } else if (dup) {
    print(std::to_string(id) + " (duplicate: key '" + display_bytes(ctx.args.get("key"), 80) +
          "' was enqueued before as this job; nothing added)\n");
  } else {
    print(std::to_string(id) + "\n");
  }
  return kExitOk;
}

std::string job_text(const echomq_job *job, int64_t lease) {
  return "id        " + std::to_string(echomq_job_id(job)) + "\n" +
         "token     " + std::to_string(echomq_job_token(job)) + "\n" +
         "lane      " + echomq_job_group(job) + "\n" +
         "attempt   " + attempt_text(job) + "\n" +
         "lease     " + human_duration(lease) + "\n" +
         "payload   " + display_bytes(job_payload(job), 2000) + "\n";
}

// --max N: a weighted claim, up to N jobs from the one lane the ring serves
// next (as many as its weight, depth and ceiling allow).
int claim_many(Context &ctx, int64_t lease, uint32_t max) {
  echomq_job_list *raw = nullptr;
  int rc = echomq_wclaim(ctx.session.client(), ctx.session.q(), lease, max, &raw);
  JobListPtr list(raw);
  if (rc == ECHOMQ_EMPTY) {
    if (ctx.json) print("[]\n");  // --json always prints one JSON value: no jobs
    throw CliError(kExitEmpty, "claim: no job ready in queue '" + ctx.session.queue() + "'");
  }
  ctx.session.check(rc, "claim");
  size_t n = echomq_job_list_count(list.get());
  if (ctx.json) {
    Json j;
    j.begin_array();
    for (size_t i = 0; i < n; ++i) job_json(j, echomq_job_list_at(list.get(), i));
    j.end_array();
    print(j.text() + "\n");
    return kExitOk;
  }
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (i ? "\n" : "") + job_text(echomq_job_list_at(list.get(), i), lease);
  print(out);
  return kExitOk;
}

int cmd_claim(Context &ctx) {
  int64_t lease = parse_seconds_ms(ctx.args.get("lease", "30"), 1, ECHOMQ_LEASE_MAX_MS, "--lease");
  bool wait = ctx.args.has("wait");
  int64_t wait_ms = wait ? parse_seconds_ms(ctx.args.get("wait"), 1, 24LL * 3600 * 1000, "--wait") : 0;
  if (ctx.args.has("max")) {
    auto max = static_cast<uint32_t>(parse_uint(ctx.args.get("max"), 1, ECHOMQ_WCLAIM_MAX, "--max"));
    if (wait) throw usage_error("claim: --wait and --max cannot be combined");
    return claim_many(ctx, lease, max);
  }
  echomq_job *raw = nullptr;
  int rc = wait ? echomq_bclaim(ctx.session.client(), ctx.session.q(), lease, wait_ms, &raw)
                : echomq_claim(ctx.session.client(), ctx.session.q(), lease, &raw);
  JobPtr job(raw);
  if (rc == ECHOMQ_EMPTY) {
    if (ctx.json) print("null\n");  // --json always prints one JSON value: no job
    throw CliError(kExitEmpty, "claim: no job ready in queue '" + ctx.session.queue() + "'");
  }
  ctx.session.check(rc, "claim");
  if (ctx.json) {
    Json j;
    job_json(j, job.get());
    print(j.text() + "\n");
    return kExitOk;
  }
  print(job_text(job.get(), lease));
  return kExitOk;
}

void parse_id_token(const Args &a, uint64_t &id, uint64_t &token) {
  id = parse_uint(a.positionals()[0], 1, UINT64_MAX, "ID");
  token = parse_uint(a.positionals()[1], 1, UINT64_MAX, "TOKEN");
}

int cmd_ack(Context &ctx) {
  uint64_t id, token;
  parse_id_token(ctx.args, id, token);
  if (ctx.args.has("result")) {
    const std::string result = ctx.args.get("result");
    ctx.session.check(echomq_ack_result(ctx.session.client(), ctx.session.q(), id, token, result.data(), result.size()),
                      "ack job " + std::to_string(id));
  } else {
    ctx.session.check(echomq_ack(ctx.session.client(), ctx.session.q(), id, token), "ack job " + std::to_string(id));
  }
  if (ctx.json) print("{\"id\":" + std::to_string(id) + ",\"acked\":true}\n");
  else print("acked job " + std::to_string(id) + "\n");
  return kExitOk;
}

int cmd_fail(Context &ctx) {
  uint64_t id, token;
  parse_id_token(ctx.args, id, token);
  std::string reason = ctx.args.get("reason");
  std::string retry = ctx.args.get("retry-in", "0");
  if (ctx.args.has("no-retry") && ctx.args.has("retry-in"))
    throw usage_error("fail: --no-retry and --retry-in cannot be combined");
  int64_t delay = ctx.args.has("no-retry") ? ECHOMQ_RETRY_DEAD
                  : retry == "backoff"     ? ECHOMQ_RETRY_BACKOFF
                                           : parse_seconds_ms(retry, 0, ECHOMQ_DELAY_MAX_MS, "--retry-in");
  int outcome = 0;
  ctx.session.check(echomq_fail(ctx.session.client(), ctx.session.q(), id, token,
                                reason.empty() ? nullptr : reason.c_str(), delay, &outcome),
                    "fail job " + std::to_string(id));
  const char *word = outcome == ECHOMQ_FAIL_RETRY     ? "retry"
                     : outcome == ECHOMQ_FAIL_DELAYED ? "delayed"
                     : outcome == ECHOMQ_FAIL_DEAD    ? "dead"
                                                      : "unknown";
  if (ctx.json) {
    print("{\"id\":" + std::to_string(id) + ",\"outcome\":\"" + word + "\"}\n");
    return kExitOk;
  }
  const char *text = outcome == ECHOMQ_FAIL_RETRY     ? "back in its lane"
                     : outcome == ECHOMQ_FAIL_DELAYED ? "waiting for its retry"
                     : outcome == ECHOMQ_FAIL_DEAD    ? "out of attempts, dead-lettered"
                                                      : "failed";
  print("job " + std::to_string(id) + ": " + text + "\n");
  return kExitOk;
}

int cmd_redrive(Context &ctx) {
  const auto &pos = ctx.args.positionals();
  bool all = ctx.args.has("all");
  if (all && !pos.empty()) throw usage_error("redrive: give job ids or --all, not both");
  if (!all && pos.empty()) throw usage_error("redrive: give job ids or --all");
  if (pos.size() > 10000) throw usage_error("redrive: at most 10000 ids at once (or --all)");
  std::vector<uint64_t> ids;
  for (const auto &p : pos) ids.push_back(parse_uint(p, 1, UINT64_MAX, "job id"));
  uint64_t moved = 0;
  if (all) {
    ctx.session.check(echomq_redrive_all(ctx.session.client(), ctx.session.q(), &moved), "redrive");
  } else {
    ctx.session.check(echomq_redrive(ctx.session.client(), ctx.session.q(), ids.data(), ids.size(),
                                     &moved),
                      "redrive");
  }
  if (ctx.json) {
    print("{\"redriven\":" + std::to_string(moved) + "}\n");
  } else if (all) {
    print("redriven " + grouped(moved) + " jobs\n");
  } else {
    print("redriven " + grouped(moved) + " of " + grouped(ids.size()) + " jobs" +
          (moved < ids.size() ? " (the others are not dead)" : "") + "\n");
  }
  return kExitOk;
}

}  // namespace

std::string read_stdin() {
  std::string data;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw CliError(kExitFailure, "cannot read standard input");
    }
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

void add_job_commands(std::vector<Command> &out) {
  out.push_back(
      {"enqueue", "GROUP [PAYLOAD|-]", "add a job to a lane (payload from the argument or stdin)",
       "With '-' the payload is all of standard input. With --lines every non-empty\n"
       "line of standard input is one job, sent with the batch API in chunks; with\n"
       "GROUP '-' each line is GROUP<TAB>PAYLOAD. All lines are checked before any\n"
       "is sent. Prints the job id (or the count and id range).",
       {{"delay", 0, "S", "seconds before the job becomes ready (decimals allowed)"},
        {"at", 0, "T", "when the job becomes ready, RFC 3339 (server clock; past = now)"},
        {"key", 0, "K", "idempotency key: a key seen within its window adds nothing"},
        {"dedup-window", 0, "S", "seconds the key is remembered (default 86400, at most 7 days)"},
        {"max-attempts", 0, "N", "attempts before dead-lettering (default: queue default)"},
        {"cost-estimate", 0, "N", "cost units each job is expected to take (cost mode: charged at its claim)"},
        {"timeout", 0, "S", "how long one attempt may run (default: the queue's)"},
        {"ttl", 0, "S", "a deadline to start, seconds from now: not started by then, it dies \"expired\""},
        {"expires-at", 0, "T", "or the deadline to start, RFC 3339 (server clock)"},
        {"expire-drop", 0, nullptr, "an expired job is removed, not dead-lettered"},
        {"name", 0, "NAME", "the job's name (its kind, as a tasks worker dispatches on it)"},
        {"header", 0, "K=V", "a header kept with the job (repeatable; at most 32, 4096 bytes in all)"},
        {"lines", 0, nullptr, "one job per line of standard input"},
        {"chunk", 0, "N", "jobs per batch with --lines, 1..10000 (default 1000)"}},
       1, 2, true, cmd_enqueue});
  out.push_back({"claim", "[--lease S] [--wait S | --max N]", "lease the next job in ring order",
                 "Prints the job id, token (pass both to ack or fail), lane and payload.\n"
                 "Exits 7 when no job is ready (after --wait seconds, if given). With --max\n"
                 "it is a weighted claim: up to N jobs from one lane (--json: an array).",
                 {{"lease", 0, "S", "lease length in seconds (default 30)"},
                  {"wait", 0, "S", "wait up to S seconds on the server for a job"},
                  {"max", 0, "N", "weighted claim of up to N jobs from one lane, 1..10000"}},
                 0, 0, true, cmd_claim});
  out.back().exits = "7 nothing to claim";
  out.push_back({"ack", "ID TOKEN [--result R]", "acknowledge a leased job: it is done and deleted",
                 "Exits 5 when the token is stale (the lease was lost), 4 when the job is gone.\n"
                 "--result R is kept with the job's outcome when the queue retains outcomes.",
                 {{"result", 0, "R", "the job's result (at most 65536 bytes)"}}, 2, 2, true, cmd_ack});
  out.back().exits = "4 no such job, 5 stale token (the lease was lost)";
  out.push_back({"fail", "ID TOKEN [--reason R] [--retry-in S | --no-retry]",
                 "fail a leased job's attempt: retry, delay, or dead-letter when out of attempts",
                 "Exits 5 when the token is stale, 4 when the job is gone.",
                 {{"reason", 0, "R", "why it failed (kept as the job's last error)"},
                  {"retry-in", 0, "S|backoff",
                   "seconds before the retry (default 0: straight back), or 'backoff'"},
                  {"no-retry", 0, nullptr, "do not retry: dead-letter it now, attempts left or not"}},
                 2, 2, true, cmd_fail});
  out.back().exits = "4 no such job, 5 stale token (the lease was lost)";
  out.push_back({"redrive", "[ID...|--all]", "move dead jobs back to their lanes with fresh attempts",
                 "Ids that are not dead are skipped.", {{"all", 0, nullptr, "every dead job"}}, 0,
                 SIZE_MAX, true, cmd_redrive});
}

}  // namespace emqcli
