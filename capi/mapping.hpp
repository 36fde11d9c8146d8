// Where the C API meets the core: the core's statuses and bounds
// (cpp/types.hpp) are the C API's numbers (echomq.h), checked here at
// compile time, and the core's result types become the C structs.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "client.hpp"
#include "echomq/echomq.h"
#include "error.hpp"
#include "types.hpp"
#include "worker.hpp"

namespace emqcapi {

#define EMQ_SAME(core, c) static_assert(static_cast<long long>(echomq::core) == static_cast<long long>(c), #c)
EMQ_SAME(kOk, ECHOMQ_OK);
EMQ_SAME(kEmpty, ECHOMQ_EMPTY);
EMQ_SAME(kUnconfirmed, ECHOMQ_UNCONFIRMED);
EMQ_SAME(kDuplicate, ECHOMQ_DUPLICATE);
EMQ_SAME(kPending, ECHOMQ_PENDING);
EMQ_SAME(kWillRetry, ECHOMQ_WILL_RETRY);
EMQ_SAME(kWillDie, ECHOMQ_WILL_DIE);
EMQ_SAME(kWasCanceled, ECHOMQ_WAS_CANCELED);
EMQ_SAME(kFinished, ECHOMQ_EFINISHED);
EMQ_SAME(kTimeLimit, ECHOMQ_ETIMELIMIT);
EMQ_SAME(kLeased, ECHOMQ_ELEASED);
EMQ_SAME(kShards, ECHOMQ_ESHARDS);
EMQ_SAME(kDepends, ECHOMQ_EDEPENDS);
EMQ_SAME(kInvalid, ECHOMQ_EINVAL);
EMQ_SAME(kTooLarge, ECHOMQ_ETOOLARGE);
EMQ_SAME(kNotFound, ECHOMQ_ENOTFOUND);
EMQ_SAME(kStale, ECHOMQ_ESTALE);
EMQ_SAME(kFull, ECHOMQ_EFULL);
EMQ_SAME(kLayout, ECHOMQ_ELAYOUT);
EMQ_SAME(kConn, ECHOMQ_ECONN);
EMQ_SAME(kTimeout, ECHOMQ_ETIMEOUT);
EMQ_SAME(kCanceled, ECHOMQ_ECANCELED);
EMQ_SAME(kTls, ECHOMQ_ETLS);
EMQ_SAME(kServer, ECHOMQ_ESERVER);
EMQ_SAME(kNoPerm, ECHOMQ_ENOPERM);
EMQ_SAME(kProto, ECHOMQ_EPROTO);
EMQ_SAME(kBusy, ECHOMQ_EBUSY);
EMQ_SAME(kLoading, ECHOMQ_ELOADING);
EMQ_SAME(kTryAgain, ECHOMQ_ETRYAGAIN);
EMQ_SAME(kOom, ECHOMQ_EOOM);
EMQ_SAME(kNoMem, ECHOMQ_ENOMEM);
EMQ_SAME(kInternal, ECHOMQ_EINTERNAL);
EMQ_SAME(kFailRetry, ECHOMQ_FAIL_RETRY);
EMQ_SAME(kFailDelayed, ECHOMQ_FAIL_DELAYED);
EMQ_SAME(kFailDead, ECHOMQ_FAIL_DEAD);
EMQ_SAME(kRetryBackoff, ECHOMQ_RETRY_BACKOFF);
EMQ_SAME(kRetryDeadNow, ECHOMQ_RETRY_DEAD);
EMQ_SAME(kRetryRelease, ECHOMQ_RETRY_RELEASE);
EMQ_SAME(kRetryDefault, ECHOMQ_RETRY_DEFAULT);
EMQ_SAME(kQueueNameMax, ECHOMQ_QUEUE_NAME_MAX);
EMQ_SAME(kGroupNameMax, ECHOMQ_GROUP_NAME_MAX);
EMQ_SAME(kDefaultMaxPayload, ECHOMQ_DEFAULT_MAX_PAYLOAD);
EMQ_SAME(kBatchMax, ECHOMQ_BATCH_MAX);
EMQ_SAME(kLeaseMaxMs, ECHOMQ_LEASE_MAX_MS);
EMQ_SAME(kDelayMaxMs, ECHOMQ_DELAY_MAX_MS);
EMQ_SAME(kAttemptsMax, ECHOMQ_ATTEMPTS_MAX);
EMQ_SAME(kWeightMax, ECHOMQ_WEIGHT_MAX);
EMQ_SAME(kLimitMax, ECHOMQ_LIMIT_MAX);
EMQ_SAME(kWclaimMax, ECHOMQ_WCLAIM_MAX);
EMQ_SAME(kPageMax, ECHOMQ_PAGE_MAX);
EMQ_SAME(kWaitMaxMs, ECHOMQ_WAIT_MAX_MS);
EMQ_SAME(kReasonMax, ECHOMQ_REASON_MAX);
EMQ_SAME(kIdMax, ECHOMQ_ID_MAX);
EMQ_SAME(kRecoverMax, ECHOMQ_RECOVER_MAX);
EMQ_SAME(kRateJobsMax, ECHOMQ_RATE_JOBS_MAX);
EMQ_SAME(kRatePeriodMaxMs, ECHOMQ_RATE_PERIOD_MAX_MS);
EMQ_SAME(kCapMax, ECHOMQ_CAP_MAX);
EMQ_SAME(kDedupKeyMax, ECHOMQ_DEDUP_KEY_MAX);
EMQ_SAME(kDedupWindowDefaultMs, ECHOMQ_DEDUP_WINDOW_DEFAULT_MS);
EMQ_SAME(kDedupWindowMaxMs, ECHOMQ_DEDUP_WINDOW_MAX_MS);
EMQ_SAME(kDedupKeysMax, ECHOMQ_DEDUP_KEYS_MAX);
EMQ_SAME(kTargetWaitMaxMs, ECHOMQ_TARGET_WAIT_MAX_MS);
EMQ_SAME(kPurgeMax, ECHOMQ_PURGE_MAX);
EMQ_SAME(kShardsMax, ECHOMQ_SHARDS_MAX);
EMQ_SAME(kJobPending, ECHOMQ_JOB_PENDING);
EMQ_SAME(kJobLeased, ECHOMQ_JOB_LEASED);
EMQ_SAME(kJobDelayed, ECHOMQ_JOB_DELAYED);
EMQ_SAME(kJobDead, ECHOMQ_JOB_DEAD);
EMQ_SAME(kJobCompleted, ECHOMQ_JOB_COMPLETED);
EMQ_SAME(kJobWaiting, ECHOMQ_JOB_WAITING);
EMQ_SAME(kFlowMax, ECHOMQ_FLOW_MAX);
EMQ_SAME(kFlowNameMax, ECHOMQ_FLOW_NAME_MAX);
EMQ_SAME(kFlowFail, ECHOMQ_FLOW_FAIL);
EMQ_SAME(kFlowIgnore, ECHOMQ_FLOW_IGNORE);
EMQ_SAME(kFlowContinue, ECHOMQ_FLOW_CONTINUE);
EMQ_SAME(kResultMax, ECHOMQ_RESULT_MAX);
EMQ_SAME(kProgressMax, ECHOMQ_PROGRESS_MAX);
EMQ_SAME(kKeepMaxMs, ECHOMQ_KEEP_MAX_MS);
EMQ_SAME(kKeepLastMax, ECHOMQ_KEEP_LAST_MAX);
EMQ_SAME(kWaitWindowMaxS, ECHOMQ_WAIT_WINDOW_MAX_S);
EMQ_SAME(kEventsMaxlenMax, ECHOMQ_EVENTS_MAXLEN_MAX);
EMQ_SAME(kWaitGraceMs, ECHOMQ_WAIT_GRACE_MS);
EMQ_SAME(kWaitReplicasMax, ECHOMQ_WAIT_REPLICAS_MAX);
EMQ_SAME(kWaitTimeoutMaxMs, ECHOMQ_WAIT_TIMEOUT_MAX_MS);
EMQ_SAME(kDoctorOk, ECHOMQ_DOCTOR_OK);
EMQ_SAME(kDoctorWarn, ECHOMQ_DOCTOR_WARN);
EMQ_SAME(kDoctorFail, ECHOMQ_DOCTOR_FAIL);
#undef EMQ_SAME

// The timeouts and durability waits the client and worker options share,
// into the core's options; EINVAL when one is out of range.
inline void setConnection(echomq::ClientOptions& o, int connect_ms, int command_ms, int wait_replicas,
                          int wait_aof, int wait_timeout_ms) {
  if (connect_ms < 1 || command_ms < 1) echomq::invalid("connect and command timeouts must be >= 1 ms");
  if (!echomq::Durability::valid(wait_replicas, wait_aof, wait_timeout_ms))
    echomq::invalid("wait_replicas, wait_aof or wait_timeout_ms out of range");
  o.timeouts.connect_ms = connect_ms;
  o.timeouts.command_ms = command_ms;
  o.durability.replicas = wait_replicas;
  o.durability.aof = wait_aof != 0;
  o.durability.timeout_ms = wait_timeout_ms;
}

// A name into a fixed C buffer of N bytes: cut to N - 1, NUL-terminated.
template <size_t N>
void copyName(char (&to)[N], const std::string& from) {
  const size_t n = std::min(from.size(), N - 1);
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

inline echomq_queue_stats toC(const echomq::QueueStats& s) {
  echomq_queue_stats o{};
  o.version = ECHOMQ_QUEUE_STATS_VERSION;
  o.lanes = s.lanes;
  o.ring = s.ring;
  o.pending = s.pending;
  o.leased = s.leased;
  o.delayed = s.delayed;
  o.dead = s.dead;
  o.paused = s.paused;
  o.enqueued_total = s.enqueued_total;
  o.claimed_total = s.claimed_total;
  o.acked_total = s.acked_total;
  o.failed_total = s.failed_total;
  o.dead_total = s.dead_total;
  o.default_weight = s.default_weight;
  o.default_limit = s.default_limit;
  o.default_max_attempts = s.default_max_attempts;
  o.server_time_ms = s.server_time_ms;
  o.tenants = s.tenants;
  o.canceled_total = s.canceled_total;
  o.expired_total = s.expired_total;
  o.bursting = s.bursting;
  return o;
}

inline echomq_lane_info toC(const echomq::LaneInfo& l) {
  echomq_lane_info o;
  std::memset(&o, 0, sizeof o);
  o.version = ECHOMQ_LANE_INFO_VERSION;
  copyName(o.group, l.group);
  o.depth = l.depth;
  o.active = l.active;
  o.limit = l.limit;
  o.weight = l.weight;
  o.limit_is_default = l.limit_is_default;
  o.weight_is_default = l.weight_is_default;
  o.paused = l.paused;
  o.serviceable = l.serviceable;
  o.served = l.served;
  o.oldest_enqueued_at_ms = l.oldest_enqueued_at_ms;
  o.known = l.known;
  o.delayed = l.delayed;
  o.rate_jobs = l.rate_jobs;
  o.rate_period_ms = l.rate_period_ms;
  o.rate_burst = l.rate_burst;
  o.rate_is_default = l.rate_is_default;
  o.tokens = l.tokens;
  o.next_token_at_ms = l.next_token_at_ms;
  o.cap = l.cap;
  o.cap_is_default = l.cap_is_default;
  copyName(o.tenant, l.tenant);
  o.is_tenant = l.is_tenant;
  o.wait_samples = l.wait_samples;
  o.wait_p50_ms = l.wait_p50_ms;
  o.wait_p99_ms = l.wait_p99_ms;
  o.window_claims = l.window_claims;
  o.share = l.share;
  o.fair_share = l.fair_share;
  o.cost_v = l.cost_v;
  o.sits_out = l.sits_out;
  o.burst = l.burst;
  o.bursting = l.bursting;
  return o;
}

inline echomq_worker_stats toC(const echomq::WorkerStats& s) {
  echomq_worker_stats o{};
  o.version = ECHOMQ_WORKER_STATS_VERSION;
  o.claimed = s.claimed;
  o.done = s.done;
  o.failed = s.failed;
  o.released = s.released;
  o.extended = s.extended;
  o.lost = s.lost;
  o.round_trips = s.round_trips;
  o.errors = s.errors;
  o.running = s.running;
  o.buffered = s.buffered;
  o.retried = s.retried;
  o.delayed = s.delayed;
  o.dead = s.dead;
  o.unconfirmed = s.unconfirmed;
  o.canceled = s.canceled;
  o.timed_out = s.timed_out;
  return o;
}

}  // namespace emqcapi
