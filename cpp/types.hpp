// The core's own statuses, bounds and result types. The core knows nothing
// of the C API: capi/mapping.hpp maps these one to one onto the C headers
// and static_asserts that every number matches (the schedule bounds and
// policies: capi/schedules.cpp); the scripts get theirs from
// echomq/common.h at build time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace echomq {

// Statuses (an Error carries one). Never renumbered: they are the C API's.
enum Status : int {
  kOk = 0,
  kEmpty = 1,
  kUnconfirmed = 2,  // done, but not confirmed durable in time
  kDuplicate = 3,    // enqueue with a key seen within its window
  kPending = 4,      // waitJob: not finished when the wait ran out
  kWillRetry = 5,    // a worker's report: the failed job will be retried
  kWillDie = 6,      // a worker's report: the failed job will be dead-lettered
  kWasCanceled = 7,  // a settlement or extension of a job canceled while leased
  kInvalid = -1,
  kTooLarge = -2,
  kNotFound = -3,
  kStale = -4,
  kFull = -5,
  kLayout = -6,
  kLeased = -7,
  kShards = -8,
  kFinished = -9,    // cancel: the job has finished
  kDepends = -16,  // a job of an unfinished flow: delete refused (echomq_delete_flow)
  kConn = -10,
  kTimeout = -11,
  kCanceled = -12,
  kTls = -13,
  kTimeLimit = -14,  // extend: the job's time limit ran out
  kServer = -20,
  kNoPerm = -21,
  kProto = -22,
  kBusy = -23,
  kLoading = -24,
  kTryAgain = -25,
  kOom = -26,
  kNoMem = -30,
  kInternal = -31,
};

// Why a worker engine told a running job's handler to stop.
enum Halt : int { kHaltCanceled = 1, kHaltTimedOut = 2 };

// What a settled fail became.
enum FailOutcome : int { kFailRetry = 1, kFailDelayed = 2, kFailDead = 3 };

// Retry delays of a fail beyond a number of ms.
constexpr int64_t kRetryBackoff = -1;  // exponential backoff, server side
constexpr int64_t kRetryDeadNow = -2;  // dead-letter now
constexpr int64_t kRetryRelease = -3;  // back unstarted, attempt not counted
constexpr int64_t kRetryDefault = -4;  // the worker's own retry policy

// Bounds of every argument (checked before any I/O).
constexpr size_t kQueueNameMax = 128;
constexpr size_t kGroupNameMax = 256;
constexpr size_t kDefaultMaxPayload = 1024 * 1024;
constexpr size_t kBatchMax = 10000;
constexpr int64_t kLeaseMaxMs = 7LL * 24 * 3600 * 1000;
constexpr int64_t kDelayMaxMs = 366LL * 24 * 3600 * 1000;
constexpr uint32_t kAttemptsMax = 1000000;
constexpr uint32_t kWeightMax = 1000000;
constexpr uint32_t kLimitMax = 1000000000;
constexpr uint32_t kWclaimMax = 10000;
constexpr size_t kPageMax = 10000;              // entries of one page (lanes, dead, redrive ids)
constexpr int64_t kWaitMaxMs = 24LL * 3600 * 1000;  // longest wait of a call or engine option
constexpr size_t kReasonMax = 4096;
constexpr int64_t kIdMax = 9007199254740991LL;  // ids and tokens stay below 2^53
constexpr uint32_t kRecoverMax = 32;
constexpr uint32_t kRateJobsMax = 1000000;
constexpr int64_t kRatePeriodMaxMs = 24LL * 3600 * 1000;
constexpr uint64_t kCapMax = 1000000000;
constexpr size_t kDedupKeyMax = 256;
constexpr int64_t kDedupWindowDefaultMs = 24LL * 3600 * 1000;
constexpr int64_t kDedupWindowMaxMs = 7LL * 24 * 3600 * 1000;
constexpr uint64_t kDedupKeysMax = 1000000;
constexpr int64_t kTargetWaitMaxMs = 60000;  // of latency-bounded prefetch
constexpr uint32_t kPurgeMax = 10000;
constexpr uint32_t kShardsMax = 256;
constexpr int kWaitReplicasMax = 100;
constexpr int kWaitTimeoutMaxMs = 60000;
constexpr size_t kResultMax = 64 * 1024;
constexpr size_t kProgressMax = 1024;
constexpr int64_t kKeepMaxMs = 366LL * 24 * 3600 * 1000;
constexpr uint64_t kKeepLastMax = 10000000;
constexpr uint64_t kEventsMaxlenMax = 10000000;
constexpr int64_t kWaitGraceMs = 60000;
// A job's name and headers (cpp/job_meta.cpp): a name of at most
// kJobNameMax bytes, at most kHeadersMax headers whose keys and values
// together hold at most kHeadersBytesMax bytes; stored encoded in at most
// kJobMetaMax bytes (the name, then "\n" key "\t" value per header).
constexpr size_t kJobNameMax = 128;
constexpr size_t kHeadersMax = 32;
constexpr size_t kHeadersBytesMax = 4096;
constexpr size_t kJobMetaMax = kJobNameMax + kHeadersBytesMax + 2 * kHeadersMax;
constexpr int64_t kWaitWindowMaxS = 86400;  // of the per-lane wait figures
// Schedules (cpp/schedules.cpp).
constexpr size_t kScheduleNameMax = 128;
constexpr int64_t kScheduleEveryMaxMs = 366LL * 24 * 3600 * 1000;
constexpr size_t kScheduleCronMax = 256;
constexpr size_t kScheduleZoneMax = 64;
constexpr uint32_t kScheduleFireMax = 16;
constexpr size_t kScheduleNextMax = 1000;
constexpr size_t kScheduleListMax = 10000;
constexpr int64_t kScheduleGraceDefaultMs = 1000;
enum Missed : int { kMissedFireOnce = 0, kMissedSkip = 1 };
enum Overlap : int { kOverlapFire = 0, kOverlapSkip = 1 };

// A schedule's spec (capi/include/echomq/schedules.h documents each field).
struct ScheduleSpec {
  int64_t every_ms = 0;
  std::string cron;  // as written ("" with every_ms)
  std::string zone;  // "" = UTC
  std::string lane;
  std::string payload;
  uint32_t max_attempts = 0;
  int64_t keep_ms = 0;
  uint64_t keep_last = 0;
  uint64_t cost_estimate = 0;
  int64_t start_at_ms = 0, end_at_ms = 0;
  uint64_t limit = 0;
  int missed = kMissedFireOnce;
  int64_t grace_ms = 0;  // 0 = kScheduleGraceDefaultMs
  int overlap = kOverlapFire;
};

// A schedule as read (the schedules script's `schedule` row).
struct ScheduleInfo {
  std::string name;
  ScheduleSpec spec;
  bool paused = false;
  std::string ended;  // "", "limit" or "end"
  int64_t next_at_ms = 0, last_tick_ms = 0, fired_tick_ms = 0, fired_at_ms = 0;
  uint64_t fired_job = 0;
  int fired_state = 0;
  uint64_t runs = 0, skips = 0;
  int64_t created_at_ms = 0, updated_at_ms = 0;
};

constexpr int64_t kTimeoutMaxMs = 366LL * 24 * 3600 * 1000;  // a job's time limit
constexpr int64_t kTtlMaxMs = 732LL * 24 * 3600 * 1000;      // a start deadline ahead of now

// A job's lifecycle limits at enqueue (lua/includes/lifeEnqueue.lua).
struct JobLimits {
  int64_t timeout_ms = 0;     // its attempts' time limit (0 = the queue's default)
  int64_t expires_at_ms = 0;  // a start deadline, server ms (0 = none)
  int64_t ttl_ms = 0;         // or one this long after the enqueue (0 = none)
  bool expire_drop = false;   // an expired job is removed, not dead-lettered
  bool any() const { return timeout_ms != 0 || expires_at_ms != 0 || ttl_ms != 0 || expire_drop; }
};

// A queue's lifecycle settings (lua/lifeconf.lua "get"); 0 = none.
struct LifeSettings {
  int64_t default_timeout_ms = 0;
  uint32_t queue_limit = 0;
  uint32_t rate_jobs = 0;
  int64_t rate_period_ms = 0;
  uint32_t rate_burst = 0;
  uint64_t leased = 0;         // jobs leased now: what the ceiling counts
  double tokens = -1;          // the rate's tokens now (-1: no rate)
  int64_t next_token_at_ms = 0;
};

// Where a job is.
enum JobState : int { kJobPending = 1, kJobLeased = 2, kJobDelayed = 3, kJobDead = 4, kJobCompleted = 5,
                     kJobWaiting = 6 };

// One finding of doctor().
enum DoctorLevel : int { kDoctorOk = 0, kDoctorWarn = 1, kDoctorFail = 2 };

// A queue's outcome settings (lua/outconf.lua "get"); 0 = off.
struct OutcomeSettings {
  int64_t keep_ms = 0;
  uint64_t keep_last = 0;
  uint64_t events_max_len = 0;
  bool events_enqueued = false;
};

// Figures of a queue (the stats script's reply).
struct QueueStats {
  uint64_t lanes = 0, ring = 0, pending = 0, leased = 0, delayed = 0, dead = 0, paused = 0;
  uint64_t enqueued_total = 0, claimed_total = 0, acked_total = 0, failed_total = 0, dead_total = 0;
  uint32_t default_weight = 0, default_limit = 0, default_max_attempts = 0;
  int64_t server_time_ms = 0;
  uint64_t tenants = 0;
  uint64_t canceled_total = 0, expired_total = 0, bursting = 0;  // lifecycle (lua/stats.lua)
};

// One lane in detail (the lanes script's reply).
struct LaneInfo {
  std::string group;
  uint64_t depth = 0, active = 0;
  uint32_t limit = 0, weight = 0;
  bool limit_is_default = false, weight_is_default = false, paused = false, serviceable = false;
  uint64_t served = 0;
  int64_t oldest_enqueued_at_ms = 0;
  bool known = false;
  uint64_t delayed = 0;
  uint32_t rate_jobs = 0;
  int64_t rate_period_ms = 0;
  uint32_t rate_burst = 0;
  bool rate_is_default = false;
  double tokens = -1;
  int64_t next_token_at_ms = 0;
  uint64_t cap = 0;
  bool cap_is_default = false;
  std::string tenant;  // T of a lane "T/L" or of the tenant row "T/"; "" for none
  bool is_tenant = false;
  uint64_t wait_samples = 0;
  double wait_p50_ms = -1, wait_p99_ms = -1;  // -1: none
  uint64_t window_claims = 0;
  double share = -1, fair_share = -1;
  double cost_v = -1;  // -1: no charge
  bool sits_out = false;
  uint32_t burst = 0;  // its burst ceiling (lua/burst.lua), 0 = none
  bool bursting = false;
};

}  // namespace echomq
