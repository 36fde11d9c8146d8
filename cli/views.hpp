// How lanes, jobs and queue figures look in text and JSON; shared by the
// listing commands and top.
#pragma once

#include <string>
#include <vector>

#include "client.hpp"
#include "format.hpp"
#include "lanes_walk.hpp"

namespace emqcli {

/// "3/5", or "3/-" for an unlimited lane.
std::string active_limit_text(const LaneRow &r);
/// "5" or "none", with " (queue default)" when the lane has no own setting.
std::string limit_text(const LaneRow &r);
std::string weight_text(const LaneRow &r);
/// "10/1s" or "-", and "10 per 1s, burst 10 (queue default)" or "none".
std::string rate_short(const LaneRow &r);
std::string rate_text(const LaneRow &r);
/// "1,000" or "-", and "1,000 (queue default)" or "none".
std::string cap_short(const LaneRow &r);
std::string cap_text(const LaneRow &r);

/// "12ms", "1.4s" or "-" (none) for a wait figure in ms.
std::string wait_short(double ms);
/// "25.0%" or "-" for a share in 0..1 (-1 = none).
std::string share_short(double share);
/// "12.5" or "-" for a cost v, with " (out)" while the row sits out.
std::string cost_short(const LaneRow &r);
/// Whether any row carries wait figures, or cost-mode figures: the listings
/// show those columns only then.
bool any_wait_figures(const std::vector<LaneRow> &rows);
bool any_tenant(const std::vector<LaneRow> &rows);

/// "11 lanes, 2 tenants" ("5 lanes" without tenants): a tenant's own
/// entry T/ is never counted as a lane.
std::string lanes_count_text(const echomq_queue_stats &st);

bool any_cost_figures(const std::vector<LaneRow> &rows);

/// The rows in display order: each tenant's row ("T/") followed by the
/// rows of its lanes in the listing, placed where the first of them ranks;
/// `indent[i]` is true for a lane shown under its tenant's row.
std::vector<size_t> tenant_order(const std::vector<LaneRow> &rows, std::vector<bool> &indent);

/// A lane as a JSON object. `now_ms` (server time, 0 if unknown) adds the
/// oldest pending job's age.
void lane_json(Json &j, const LaneRow &r, int64_t now_ms);

/// "1/2": the attempt within the job's current budget, of its max attempts.
std::string attempt_text(const echomq_job *job);

/// A job as a JSON object; the payload as "payload" when it is UTF-8 text,
/// else as "payload_base64".
void job_json(Json &j, const echomq_job *job);

/// The job's payload bytes.
std::string job_payload(const echomq_job *job);

/// Queue figures as JSON members of an open object.
void stats_json_members(Json &j, const echomq_queue_stats &st);

}  // namespace emqcli
