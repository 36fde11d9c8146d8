#include "views.hpp"

#include <cstdio>

namespace emqcli {

std::string active_limit_text(const LaneRow &r) {
  return std::to_string(r.active) + "/" + (r.limit == 0 ? "-" : std::to_string(r.limit));
}

std::string limit_text(const LaneRow &r) {
  std::string t = r.limit == 0 ? "none" : std::to_string(r.limit);
  return r.limit_is_default ? t + " (queue default)" : t;
}

std::string rate_short(const LaneRow &r) {
  if (r.rate_jobs == 0) return "-";
  return std::to_string(r.rate_jobs) + "/" + human_duration(r.rate_period_ms);
}

std::string rate_text(const LaneRow &r) {
  std::string t = r.rate_jobs == 0 ? "none"
                                   : std::to_string(r.rate_jobs) + " per " + human_duration(r.rate_period_ms) +
                                         ", burst " + std::to_string(r.rate_burst);
  return r.rate_is_default ? t + " (queue default)" : t;
}

std::string cap_short(const LaneRow &r) { return r.cap == 0 ? "-" : grouped(r.cap); }

std::string cap_text(const LaneRow &r) {
  std::string t = r.cap == 0 ? "none" : grouped(r.cap);
  return r.cap_is_default ? t + " (queue default)" : t;
}

std::string weight_text(const LaneRow &r) {
  std::string t = std::to_string(r.weight);
  return r.weight_is_default ? t + " (queue default)" : t;
}

std::string wait_short(double ms) {
  if (ms < 0) return "-";
  char buf[32];
  if (ms < 1000) std::snprintf(buf, sizeof buf, "%.0fms", ms < 1 ? 1.0 : ms);
  else if (ms < 60000) std::snprintf(buf, sizeof buf, "%.1fs", ms / 1000);
  else return human_duration(static_cast<int64_t>(ms));
  return buf;
}

std::string share_short(double share) {
  if (share < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
  return buf;
}

std::string cost_short(const LaneRow &r) {
  std::string t = "-";
  if (r.cost_v >= 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", r.cost_v);
    t = buf;
  }
  return r.sits_out ? t + " (out)" : t;
}

bool any_wait_figures(const std::vector<LaneRow> &rows) {
  for (const auto &r : rows)
    if (r.wait_samples > 0 || r.window_claims > 0 || r.share >= 0) return true;
  return false;
}

bool any_tenant(const std::vector<LaneRow> &rows) {
  for (const auto &r : rows)
    if (!r.tenant.empty()) return true;
  return false;
}

std::string lanes_count_text(const echomq_queue_stats &st) {
  std::string t = grouped(st.lanes) + (st.lanes == 1 ? " lane" : " lanes");
  if (st.tenants > 0) t += ", " + grouped(st.tenants) + (st.tenants == 1 ? " tenant" : " tenants");
  return t;
}

bool any_cost_figures(const std::vector<LaneRow> &rows) {
  for (const auto &r : rows)
    if (r.cost_v >= 0 || r.sits_out) return true;
  return false;
}

std::vector<size_t> tenant_order(const std::vector<LaneRow> &rows, std::vector<bool> &indent) {
  std::vector<size_t> order;
  std::vector<bool> placed(rows.size(), false);
  indent.assign(rows.size(), false);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (placed[i]) continue;
    const std::string &t = rows[i].tenant;
    if (t.empty()) {
      order.push_back(i);
      placed[i] = true;
      continue;
    }
    // The tenant's row first (when listed), then its lanes in listing order.
    bool head = false;
    for (size_t j = i; j < rows.size(); ++j)
      if (!placed[j] && rows[j].is_tenant && rows[j].tenant == t) {
        order.push_back(j);
        placed[j] = true;
        head = true;
      }
    for (size_t j = i; j < rows.size(); ++j)
      if (!placed[j] && rows[j].tenant == t) {
        order.push_back(j);
        placed[j] = true;
        indent[j] = head;
      }
  }
  return order;
}

void lane_json(Json &j, const LaneRow &r, int64_t now_ms) {
  j.begin_object();
  j.key("group").str(r.group);
  j.key("depth").num(r.depth);
  j.key("active").num(r.active);
  j.key("limit");
  if (r.limit == 0) j.null();
  else j.num(static_cast<uint64_t>(r.limit));
  j.key("limit_is_default").boolean(r.limit_is_default);
  j.key("weight").num(static_cast<uint64_t>(r.weight));
  j.key("weight_is_default").boolean(r.weight_is_default);
  j.key("paused").boolean(r.paused);
  j.key("serviceable").boolean(r.serviceable);
  j.key("served").num(r.served);
  j.key("oldest_enqueued_at_ms");
  if (r.oldest_enqueued_at_ms == 0) j.null();
  else j.num(r.oldest_enqueued_at_ms);
  j.key("known").boolean(r.known);
  j.key("delayed").num(r.delayed);
  j.key("rate");
  if (r.rate_jobs == 0) {
    j.null();
  } else {
    j.begin_object().key("jobs").num(static_cast<uint64_t>(r.rate_jobs));
    j.key("period_ms").num(r.rate_period_ms).key("burst").num(static_cast<uint64_t>(r.rate_burst));
    j.end_object();
  }
  j.key("rate_is_default").boolean(r.rate_is_default);
  j.key("tokens");
  if (r.tokens < 0) j.null();
  else j.num(r.tokens);
  j.key("next_token_at_ms");
  if (r.next_token_at_ms == 0) j.null();
  else j.num(r.next_token_at_ms);
  j.key("cap");
  if (r.cap == 0) j.null();
  else j.num(r.cap);
  j.key("cap_is_default").boolean(r.cap_is_default);
  j.key("tenant");
  if (r.tenant.empty()) j.null();
  else j.str(r.tenant);
  j.key("is_tenant").boolean(r.is_tenant);
  j.key("wait_samples").num(r.wait_samples);
  auto opt = [&](const char *k, double v) {
    j.key(k);
    if (v < 0) j.null();
    else j.num(v);
  };
  opt("wait_p50_ms", r.wait_p50_ms);
  opt("wait_p99_ms", r.wait_p99_ms);
  j.key("window_claims").num(r.window_claims);
  opt("share", r.share);
  opt("share_in_tenant", r.share_in_tenant);
  opt("fair_share", r.fair_share);
  opt("cost_v", r.cost_v);
  j.key("sits_out").boolean(r.sits_out);
  if (now_ms > 0) {
    j.key("oldest_age_ms");
    if (r.oldest_enqueued_at_ms == 0) j.null();
    else j.num(now_ms - r.oldest_enqueued_at_ms);
  }
  j.end_object();
}

std::string job_payload(const echomq_job *job) {
  size_t len = 0;
  const char *p = echomq_job_payload(job, &len);
  return p == nullptr ? std::string() : std::string(p, len);
}

std::string attempt_text(const echomq_job *job) {
  return std::to_string(echomq_job_attempt(job)) + "/" + std::to_string(echomq_job_max_attempts(job));
}

void job_json(Json &j, const echomq_job *job) {
  std::string payload = job_payload(job);
  j.begin_object();
  j.key("id").num(static_cast<uint64_t>(echomq_job_id(job)));
  j.key("group").str(echomq_job_group(job));
  j.key("token").num(static_cast<uint64_t>(echomq_job_token(job)));
  j.key("attempt").num(static_cast<uint64_t>(echomq_job_attempt(job)));
  j.key("max_attempts").num(static_cast<uint64_t>(echomq_job_max_attempts(job)));
  if (utf8_valid(payload)) j.key("payload").str(payload);
  else j.key("payload_base64").str(base64(payload));
  j.key("enqueued_at_ms").num(static_cast<int64_t>(echomq_job_enqueued_at_ms(job)));
  int64_t lease = echomq_job_lease_until_ms(job);
  j.key("lease_until_ms");
  if (lease == 0) j.null();
  else j.num(lease);
  int64_t dead = echomq_job_dead_at_ms(job);
  j.key("dead_at_ms");
  if (dead == 0) j.null();
  else j.num(dead);
  std::string err = echomq_job_last_error(job);
  j.key("last_error").str(utf8_valid(err) ? err : display_bytes(err, err.size()));
  j.end_object();
}

void stats_json_members(Json &j, const echomq_queue_stats &st) {
  j.key("lanes").num(st.lanes);
  j.key("tenants").num(st.tenants);
  j.key("ring").num(st.ring);
  j.key("pending").num(st.pending);
  j.key("leased").num(st.leased);
  j.key("delayed").num(st.delayed);
  j.key("dead").num(st.dead);
  j.key("paused").num(st.paused);
  j.key("served_total").num(st.claimed_total);
  j.key("enqueued_total").num(st.enqueued_total);
  j.key("acked_total").num(st.acked_total);
  j.key("failed_total").num(st.failed_total);
  j.key("dead_total").num(st.dead_total);
  j.key("default_weight").num(static_cast<uint64_t>(st.default_weight));
  j.key("default_limit");
  if (st.default_limit == 0) j.null();
  else j.num(static_cast<uint64_t>(st.default_limit));
  j.key("default_max_attempts").num(static_cast<uint64_t>(st.default_max_attempts));
  j.key("server_time_ms").num(st.server_time_ms);
}

}  // namespace emqcli
