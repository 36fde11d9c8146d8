// Read-only commands: stats, lanes, lane, dead, verify, doctor.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "lanes_walk.hpp"
#include "metrics.hpp"
#include "views.hpp"

namespace emqcli {
namespace {

// "key   value" lines with the values aligned.
std::string key_values(const std::vector<std::pair<std::string, std::string>> &kv) {
  size_t w = 0;
  for (const auto &p : kv) w = std::max(w, p.first.size());
  std::string out;
  for (const auto &p : kv) out += p.first + std::string(w - p.first.size() + 2, ' ') + p.second + "\n";
  return out;
}

std::string lines_text(const std::vector<std::string> &lines) {
  std::string out;
  for (const auto &l : lines) out += l + "\n";
  return out;
}

int cmd_stats(Context &ctx) {
  if (ctx.args.has("top") && !ctx.args.has("format")) throw usage_error("stats: --top needs --format prometheus");
  if (ctx.args.has("format")) {
    if (ctx.args.get("format") != "prometheus")
      throw usage_error("stats: --format takes 'prometheus' (or use --json)");
    if (ctx.json) throw usage_error("stats: --format prometheus and --json cannot be combined");
    size_t top = parse_uint(ctx.args.get("top", "10"), 0, kMetricsTopMax, "--top");
    print(prometheus_text(ctx.session, top));
    return kExitOk;
  }
  echomq_queue_stats st = fetch_stats(ctx.session);
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue());
    stats_json_members(j, st);
    j.end_object();
    print(j.text() + "\n");
    return kExitOk;
  }
  std::string limit = st.default_limit == 0 ? "none" : std::to_string(st.default_limit);
  print(key_values({
      {"queue", ctx.session.queue()},
      {"lanes", grouped(st.lanes)},
      {"tenants", grouped(st.tenants)},
      {"in ring", grouped(st.ring)},
      {"paused", grouped(st.paused)},
      {"pending", grouped(st.pending)},
      {"leased", grouped(st.leased)},
      {"delayed", grouped(st.delayed)},
      {"dead", grouped(st.dead)},
      {"served", grouped(st.claimed_total) + " total"},
      {"enqueued", grouped(st.enqueued_total) + " total"},
      {"acked", grouped(st.acked_total) + " total"},
      {"failed", grouped(st.failed_total) + " total"},
      {"dead-lettered", grouped(st.dead_total) + " total"},
      {"defaults", "weight " + std::to_string(st.default_weight) + ", limit " + limit +
                       ", max attempts " + std::to_string(st.default_max_attempts)},
  }));
  return kExitOk;
}

int cmd_lanes(Context &ctx) {
  LaneSort sort = parse_lane_sort(ctx.args.get("sort", "depth"));
  size_t limit = parse_uint(ctx.args.get("limit", "20"), 0, UINT32_MAX, "--limit");
  size_t page = parse_uint(ctx.args.get("page", "1000"), 1, 10000, "--page");
  LaneTop top = top_lanes(ctx.session, sort, limit, page);
  fill_tenant_shares(ctx.session, top.rows);
  // The counts come from the server: the walk may have stopped early.
  const echomq_queue_stats st = fetch_stats(ctx.session);
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue());
    j.key("sort").str(lane_sort_name(sort));
    j.key("lanes_total").num(st.lanes).key("tenants_total").num(st.tenants);
    j.key("more").boolean(top.more);
    j.key("lanes").begin_array();
    for (const auto &r : top.rows) lane_json(j, r, 0);
    j.end_array().end_object();
    print(j.text() + "\n");
    return kExitOk;
  }
  // Wait and cost columns only when some row carries those figures.
  const bool waits = any_wait_figures(top.rows), cost = any_cost_figures(top.rows);
  const bool tenants = any_tenant(top.rows);
  std::vector<std::string> head{"LANE", "DEPTH", "ACTIVE/LIMIT", "WEIGHT", "RATE", "CAP", "PAUSED", "SERVED"};
  std::vector<bool> right{false, true, true, true, true, true, false, true};
  if (waits) {
    // A lane's SHARE is of the queue; IN TENANT its part of its tenant's.
    for (const char *h : {"WAIT P50", "WAIT P99", "SHARE"}) head.push_back(h);
    if (tenants) head.push_back("IN TENANT");
    head.push_back("FAIR");
    right.insert(right.end(), tenants ? 5 : 4, true);
  }
  if (cost) {
    head.push_back("COST V");
    right.push_back(true);
  }
  Table t(head, right);
  std::vector<bool> indent;
  for (size_t i : tenant_order(top.rows, indent)) {
    const LaneRow &r = top.rows[i];
    std::vector<std::string> row{(indent[i] ? "  " : "") + fit_width(r.group, 48), grouped(r.depth),
                                 active_limit_text(r), std::to_string(r.weight), rate_short(r), cap_short(r),
                                 r.paused ? "yes" : "no", grouped(r.served)};
    if (waits) {
      row.push_back(wait_short(r.wait_p50_ms));
      row.push_back(wait_short(r.wait_p99_ms));
      row.push_back(share_short(r.share));
      if (tenants) row.push_back(share_short(r.share_in_tenant));
      row.push_back(share_short(r.fair_share));
    }
    if (cost) row.push_back(cost_short(r));
    t.add(row);
  }
  std::string out = lines_text(t.lines());
  // The counts and the rows left out, when there is something to say.
  if (st.tenants > 0) out += lanes_count_text(st) + "\n";
  if (top.more) {
    const std::string how = " (--limit N shows more, --limit 0 all)";
    if (sort == LaneSort::kName)
      out += "more rows follow '" + fit_width(top.rows.back().group, 48) + "'" + how + "\n";
    else
      out += std::to_string(top.rows.size()) + " of " + grouped(top.scanned) + " rows shown, by " +
             lane_sort_name(sort) + how + "\n";
  }
  print(out);
  return kExitOk;
}

int cmd_lane(Context &ctx) {
  const std::string &group = ctx.args.positionals()[0];
  require_group_name(group);
  std::vector<LaneRow> one{fetch_lane(ctx.session, group)};
  fill_tenant_shares(ctx.session, one);
  const LaneRow &r = one[0];
  if (!lane_known(r))
    throw CliError(kExitNotFound, "no such lane '" + group + "' in queue '" +
                                      ctx.session.queue() + "'");
  // The oldest job's age is measured on the server's clock, never ours.
  int64_t now = fetch_stats(ctx.session).server_time_ms;
  if (ctx.json) {
    Json j;
    lane_json(j, r, now);
    print(j.text() + "\n");
    return kExitOk;
  }
  std::string oldest = r.oldest_enqueued_at_ms == 0
                           ? "-"
                           : human_duration(now - r.oldest_enqueued_at_ms) + " ago";
  std::vector<std::pair<std::string, std::string>> kv{
      {"lane", r.group},
      {"depth", grouped(r.depth)},
      {"active", active_limit_text(r)},
      {"limit", limit_text(r)},
      {"weight", weight_text(r)},
      {"rate", rate_text(r)},
      {"tokens", r.tokens < 0 ? std::string("-")
                              : std::to_string(static_cast<int64_t>(r.tokens)) +
                                    (r.next_token_at_ms > 0
                                         ? " (next in " + human_duration(std::max<int64_t>(0, r.next_token_at_ms - now)) + ")"
                                         : std::string())},
      {"cap", cap_text(r)},
      {"delayed", grouped(r.delayed)},
      {"paused", r.paused ? "yes" : "no"},
      {"in ring", r.serviceable ? "yes" : "no"},
      {"served", grouped(r.served)},
      {"oldest", oldest},
  };
  // Tenant, wait and cost lines only when the lane has them.
  if (!r.tenant.empty()) kv.push_back({"tenant", r.is_tenant ? r.tenant + " (the tenant's own row)" : r.tenant});
  if (r.wait_samples > 0)
    kv.push_back({"wait p50/p99", wait_short(r.wait_p50_ms) + " / " + wait_short(r.wait_p99_ms) + " (" +
                                      grouped(r.wait_samples) + " first claims)"});
  if (r.share >= 0)
    kv.push_back({"window share", share_short(r.share) + " of the queue (" + grouped(r.window_claims) +
                                      " claims in the window)" +
                                      (r.share_in_tenant >= 0 ? ", " + share_short(r.share_in_tenant) +
                                                                    " of tenant " + r.tenant
                                                              : std::string()) +
                                      ", fair " + share_short(r.fair_share)});
  if (r.cost_v >= 0 || r.sits_out) kv.push_back({"cost v", cost_short(r)});
  print(key_values(kv));
  return kExitOk;
}

int cmd_dead(Context &ctx) {
  size_t limit = parse_uint(ctx.args.get("limit", "20"), 1, 10000, "--limit");
  uint64_t offset = parse_uint(ctx.args.get("offset", "0"), 0, UINT64_MAX / 2, "--offset");
  echomq_job_list *raw = nullptr;
  ctx.session.check(echomq_dead(ctx.session.client(), ctx.session.q(), offset, limit, &raw), "dead");
  JobListPtr list(raw);
  size_t n = echomq_job_list_count(list.get());
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue());
    j.key("jobs").begin_array();
    for (size_t i = 0; i < n; ++i) job_json(j, echomq_job_list_at(list.get(), i));
    j.end_array().end_object();
    print(j.text() + "\n");
    return kExitOk;
  }
  int64_t now = n > 0 ? fetch_stats(ctx.session).server_time_ms : 0;
  Table t({"ID", "LANE", "ATTEMPTS", "DIED", "ERROR", "PAYLOAD"},
          {true, false, true, true, false, false});
  for (size_t i = 0; i < n; ++i) {
    const echomq_job *job = echomq_job_list_at(list.get(), i);
    int64_t died = echomq_job_dead_at_ms(job);
    t.add({std::to_string(echomq_job_id(job)), fit_width(echomq_job_group(job), 32),
           attempt_text(job),
           died == 0 ? "-" : human_duration(now - died) + " ago",
           display_bytes(echomq_job_last_error(job), 40), display_bytes(job_payload(job), 40)});
  }
  print(lines_text(t.lines()));
  return kExitOk;
}

int cmd_verify(Context &ctx) {
  echomq_report *raw = nullptr;
  ctx.session.check(echomq_verify(ctx.session.client(), ctx.session.q(), &raw), "verify");
  ReportPtr report(raw);
  size_t n = echomq_report_count(report.get());
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue());
    j.key("ok").boolean(n == 0);
    j.key("violations").begin_array();
    for (size_t i = 0; i < n; ++i) {
      std::string line = echomq_report_at(report.get(), i);
      j.str(utf8_valid(line) ? line : display_bytes(line, line.size()));
    }
    j.end_array().end_object();
    print(j.text() + "\n");
  } else if (n == 0) {
    print("ok: queue '" + ctx.session.queue() + "' keeps its invariants\n");
  } else {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += display_bytes(echomq_report_at(report.get(), i), 400) + "\n";
    print(out);
  }
  if (n == 0) return kExitOk;
  if (!ctx.json)
    std::fprintf(stderr, "echomq: verify: %zu violation%s in queue '%s'\n", n, n == 1 ? "" : "s",
                 ctx.session.q());
  return kExitViolations;
}

int cmd_doctor(Context &ctx) {
  std::string user = ctx.args.get("acl-user", "");
  echomq_report *raw = nullptr;
  int worst = ECHOMQ_DOCTOR_OK;
  ctx.session.check(echomq_doctor(ctx.session.client(), ctx.session.q(),
                                  user.empty() ? nullptr : user.c_str(), &raw, &worst),
                    "doctor");
  ReportPtr report(raw);
  size_t n = echomq_report_count(report.get());
  if (ctx.json) {
    Json j;
    j.begin_object().key("queue").str(ctx.session.queue());
    j.key("worst").str(worst == ECHOMQ_DOCTOR_OK ? "ok" : worst == ECHOMQ_DOCTOR_WARN ? "warn" : "fail");
    j.key("checks").begin_array();
    for (size_t i = 0; i < n; ++i) {
      std::string line = echomq_report_at(report.get(), i);
      auto sp = line.find(' ');
      auto colon = line.find(':', sp + 1);
      j.begin_object().key("level").str(line.substr(0, sp));
      j.key("check").str(line.substr(sp + 1, colon - sp - 1));
      j.key("text").str(line.substr(colon + 2));
      j.end_object();
    }
    j.end_array().end_object();
    print(j.text() + "\n");
  } else {
    print(lines_text(std::vector<std::string>(
        [&] {
          std::vector<std::string> v;
          for (size_t i = 0; i < n; ++i) v.push_back(echomq_report_at(report.get(), i));
          return v;
        }())));
  }
  if (worst == ECHOMQ_DOCTOR_FAIL) return kExitDoctorFail;
  if (worst == ECHOMQ_DOCTOR_WARN) return kExitDoctorWarn;
  return kExitOk;
}

}  // namespace

void add_inspect_commands(std::vector<Command> &out) {
  out.push_back({"stats", "[--format prometheus [--top N]]",
                 "queue figures: lanes, ring, pending, leased, delayed, dead, totals",
                 "--format prometheus prints them as OpenMetrics text for a scrape (node\n"
                 "exporter textfile, or a script target), with the N deepest lanes\n"
                 "(default 10, at most 100: bounded label cardinality). See docs/operations.md.",
                 {{"format", 0, "FMT", "prometheus: OpenMetrics text"},
                  {"top", 0, "N", "lanes reported by depth with --format prometheus, 0..100 (default 10)"}},
                 0, 0, true, cmd_stats});
  out.push_back(
      {"lanes", "[--sort KEY] [--limit N] [--page N]", "one row per lane: depth, active/limit, weight, paused, served",
       "Walks the lanes page by page and keeps only the top N rows, so it works on\n"
       "queues with millions of lanes. Numeric sorts are descending; ties by name.",
       {{"sort", 0, "KEY", "depth (default), active, served or name"},
        {"limit", 0, "N", "rows to show (default 20; 0 = all, held in memory)"},
        {"page", 0, "N", "lanes fetched per round trip, 1..10000 (default 1000)"}},
       0, 0, true, cmd_lanes});
  out.push_back({"lane", "GROUP", "one lane in detail, with its oldest pending job's age",
                 "Exits 4 when the lane is unknown: no jobs pending or leased, never served,\n"
                 "and no settings of its own.",
                 {}, 1, 1, true, cmd_lane});
  out.back().exits = "4 unknown lane";
  out.push_back({"dead", "[--limit N] [--offset N]", "list dead-lettered jobs, oldest death first", "",
                 {{"limit", 0, "N", "jobs to show, 1..10000 (default 20)"},
                  {"offset", 0, "N", "skip the first N dead jobs (default 0)"}},
                 0, 0, true, cmd_dead});
  out.push_back({"verify", "", "check the queue invariants; exit 6 and list violations if any",
                 "Runs one server-side check over the whole queue (O(jobs + lanes)).", {}, 0, 0,
                 true, cmd_verify});
  out.back().exits = "6 violations found";
  out.push_back({"doctor", "[--acl-user NAME]",
                 "check the server the queue runs on; one line of advice per check",
                 "Checks the server version (the 2025 Lua sandbox fixes), maxmemory-policy,\n"
                 "persistence, replicas, cluster mode, and which operations a user may run on\n"
                 "the queue (ACL DRYRUN). Reads only. Exits 0 when every check is ok, 8 on\n"
                 "warnings, 9 when a check failed.",
                 {{"acl-user", 0, "NAME", "check this ACL user's permissions (default: the connected user)"}},
                 0, 0, true, cmd_doctor});
  out.back().exits = "8 warnings, 9 a check failed";
}

}  // namespace emqcli
