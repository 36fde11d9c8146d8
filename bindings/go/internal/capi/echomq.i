/*
 * echomq.i — SWIG interface that generates package capi, the low-level Go
 * layer over the C API (capi/include/echomq/echomq.h).
 *
 * The generated files (capi.go, capi_wrap.c) are checked in; regenerate them
 * with `go generate ./internal/capi` from bindings/go (see generate.go). The
 * file is named .i, not .swig, so that the go tool does not run SWIG a second
 * time on top of the checked-in wrapper (that would define every symbol twice).
 *
 * What this file adds to the plain header:
 * - names without the echomq_ prefix (echomq_job_id -> Job_id in Go);
 * - binary-safe typemaps: a Go []byte is passed as (pointer, length), never as
 *   a NUL-terminated char * (which would cut a payload at its first NUL);
 * - shims for every `T **out` constructor: they return the status and write
 *   the new handle's address to a []uint64 slot, which the Go side turns into
 *   a SWIG pointer type (SwigcptrJob(...)) without unsafe code;
 * - shims that copy the numeric fields of a job, the stats and a lane into a
 *   Go []int64 in one call, so no C struct is allocated for them.
 */
%module capi

%{
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <echomq/echomq.h>
%}

%include <stdint.i>
%include <typemaps.i>

/* echomq_job_id -> job_id, emqgo_claim -> claim; Go then capitalises. */
%rename("%(regex:/^(echomq|emqgo)_(.*)$/\\2/)s", regextarget=1, fullname=1) "^(echomq|emqgo)_";
%rename(Client) echomq_client;
%rename(Job) echomq_job;
%rename(JobList) echomq_job_list;
%rename(Batch) echomq_batch;
%rename(LaneList) echomq_lane_list;
%rename(Report) echomq_report;
%rename(Worker) echomq_worker;
%rename(EventList) echomq_event_list;
%rename(ScheduleList) echomq_schedule_list;

/* The handles are opaque in C; declaring them empty here (never emitted into
 * C) gives them plain Go names instead of mangled ones. */
%nodefaultctor;
%nodefaultdtor;
struct echomq_client {};
struct echomq_job {};
struct echomq_job_list {};
struct echomq_batch {};
struct echomq_lane_list {};
struct echomq_report {};
struct echomq_worker {};
struct echomq_event_list {};
struct echomq_schedule_list {};
%clearnodefaultctor;
%clearnodefaultdtor;

/* Returned strings are owned by the C handle (or static): copy them into Go
 * memory at once instead of SWIG's default malloc-copy-free round, which
 * needs a uintptr-to-pointer conversion that go vet rightly flags. */
%go_import("strings")
%typemap(out) const char *
%{
  $result.p = (char *)$1;
  $result.n = $1 ? (intgo)strlen($1) : 0;
%}
%typemap(goout) const char * %{ $result = strings.Clone($1) %}

/* ---- binary-safe byte buffers: Go []byte <-> (pointer, length) ---------- */

%typemap(gotype) (const char *BYTES, size_t LENGTH), (char *BUF, size_t CAP) "[]byte"
%typemap(in) (const char *BYTES, size_t LENGTH), (char *BUF, size_t CAP)
%{
  $1 = ($1_ltype)$input.array;
  $2 = ($2_ltype)$input.len;
%}
%apply (const char *BYTES, size_t LENGTH) { (const char *payload, size_t payload_len) };
%apply (const char *BYTES, size_t LENGTH) { (const char *result, size_t result_len) };
%apply (const char *BYTES, size_t LENGTH) { (const char *value, size_t value_len) };

/* Go []uint64 -> (const uint64_t *, size_t), for redrive. */
%typemap(gotype) (const uint64_t *IDS, size_t N) "[]uint64"
%typemap(in) (const uint64_t *IDS, size_t N)
%{
  $1 = ($1_ltype)$input.array;
  $2 = ($2_ltype)$input.len;
%}
%apply (const uint64_t *IDS, size_t N) { (const uint64_t *ids, size_t n) };

/* Go []int64 the callee fills, with its length. */
%typemap(gotype) (int64_t *NUMS, size_t N) "[]int64"
%typemap(in) (int64_t *NUMS, size_t N)
%{
  $1 = ($1_ltype)$input.array;
  $2 = ($2_ltype)$input.len;
%}

/* Scalar results through a one-element Go slice. */
%apply long *OUTPUT { int64_t *lease_until_ms, int64_t *OUT_I64 };
%apply unsigned long *OUTPUT { uint64_t *redriven, uint64_t *OUT_U64, uint64_t *OUT_HANDLE };

/* ---- the C API, as far as the Go package uses it ----------------------
 * Declared here rather than %include-ing echomq.h, so that the generated
 * files change only when the Go layer's needs change, not with every
 * addition to the header. The wrapper is compiled against the real header,
 * so a changed prototype of a function used here breaks the build loudly,
 * and the constants are read from the C side at init, never copied. */

%constant int ECHOMQ_VERSION_MAJOR = ECHOMQ_VERSION_MAJOR;
%constant int ECHOMQ_VERSION_MINOR = ECHOMQ_VERSION_MINOR;
%constant int ECHOMQ_VERSION_PATCH = ECHOMQ_VERSION_PATCH;

%constant int ECHOMQ_OK = ECHOMQ_OK;
%constant int ECHOMQ_EMPTY = ECHOMQ_EMPTY;
%constant int ECHOMQ_UNCONFIRMED = ECHOMQ_UNCONFIRMED;
%constant int ECHOMQ_EINVAL = ECHOMQ_EINVAL;
%constant int ECHOMQ_ETOOLARGE = ECHOMQ_ETOOLARGE;
%constant int ECHOMQ_ENOTFOUND = ECHOMQ_ENOTFOUND;
%constant int ECHOMQ_ESTALE = ECHOMQ_ESTALE;
%constant int ECHOMQ_ELAYOUT = ECHOMQ_ELAYOUT;
%constant int ECHOMQ_EFULL = ECHOMQ_EFULL;
%constant int ECHOMQ_ELEASED = ECHOMQ_ELEASED;
%constant int ECHOMQ_ESHARDS = ECHOMQ_ESHARDS;
%constant int ECHOMQ_DUPLICATE = ECHOMQ_DUPLICATE;
%constant int ECHOMQ_PENDING = ECHOMQ_PENDING;
%constant int ECHOMQ_WILL_RETRY = ECHOMQ_WILL_RETRY;
%constant int ECHOMQ_WILL_DIE = ECHOMQ_WILL_DIE;
%constant int ECHOMQ_WAS_CANCELED = ECHOMQ_WAS_CANCELED;
%constant int ECHOMQ_EFINISHED = ECHOMQ_EFINISHED;
%constant int ECHOMQ_ETIMELIMIT = ECHOMQ_ETIMELIMIT;
%constant int ECHOMQ_CANCEL_REMOVE = ECHOMQ_CANCEL_REMOVE;
%constant int ECHOMQ_EXPIRE_DROP = ECHOMQ_EXPIRE_DROP;
%constant int ECHOMQ_HALT_CANCELED = ECHOMQ_HALT_CANCELED;
%constant int ECHOMQ_HALT_TIMED_OUT = ECHOMQ_HALT_TIMED_OUT;
%constant long long ECHOMQ_TIMEOUT_MAX_MS = ECHOMQ_TIMEOUT_MAX_MS;
%constant long long ECHOMQ_TTL_MAX_MS = ECHOMQ_TTL_MAX_MS;
%constant int ECHOMQ_ECONN = ECHOMQ_ECONN;
%constant int ECHOMQ_ETIMEOUT = ECHOMQ_ETIMEOUT;
%constant int ECHOMQ_ECANCELED = ECHOMQ_ECANCELED;
%constant int ECHOMQ_ETLS = ECHOMQ_ETLS;
%constant int ECHOMQ_ESERVER = ECHOMQ_ESERVER;
%constant int ECHOMQ_ENOPERM = ECHOMQ_ENOPERM;
%constant int ECHOMQ_EPROTO = ECHOMQ_EPROTO;
%constant int ECHOMQ_EBUSY = ECHOMQ_EBUSY;
%constant int ECHOMQ_ELOADING = ECHOMQ_ELOADING;
%constant int ECHOMQ_ETRYAGAIN = ECHOMQ_ETRYAGAIN;
%constant int ECHOMQ_EOOM = ECHOMQ_EOOM;
%constant int ECHOMQ_ENOMEM = ECHOMQ_ENOMEM;
%constant int ECHOMQ_EINTERNAL = ECHOMQ_EINTERNAL;

%constant int ECHOMQ_FAIL_RETRY = ECHOMQ_FAIL_RETRY;
%constant int ECHOMQ_FAIL_DELAYED = ECHOMQ_FAIL_DELAYED;
%constant int ECHOMQ_FAIL_DEAD = ECHOMQ_FAIL_DEAD;
%constant int ECHOMQ_RETRY_BACKOFF = ECHOMQ_RETRY_BACKOFF;
%constant int ECHOMQ_RETRY_DEFAULT = ECHOMQ_RETRY_DEFAULT;
%constant int ECHOMQ_RETRY_DEAD = ECHOMQ_RETRY_DEAD;
%constant int ECHOMQ_PURGE_MAX = ECHOMQ_PURGE_MAX;
%constant int ECHOMQ_DEDUP_KEY_MAX = ECHOMQ_DEDUP_KEY_MAX;
%constant int ECHOMQ_STOP_DRAIN = ECHOMQ_STOP_DRAIN;
%constant int ECHOMQ_STOP_ABANDON = ECHOMQ_STOP_ABANDON;
%constant int ECHOMQ_KEY_LAYOUT = ECHOMQ_KEY_LAYOUT;

%constant int ECHOMQ_DEFAULT_MAX_PAYLOAD = ECHOMQ_DEFAULT_MAX_PAYLOAD;
%constant int ECHOMQ_BATCH_MAX = ECHOMQ_BATCH_MAX;
%constant int ECHOMQ_WAIT_WINDOW_MAX_S = ECHOMQ_WAIT_WINDOW_MAX_S;
%constant int ECHOMQ_WCLAIM_MAX = ECHOMQ_WCLAIM_MAX;
%constant int ECHOMQ_SHARDS_MAX = ECHOMQ_SHARDS_MAX;
%constant int ECHOMQ_RESULT_MAX = ECHOMQ_RESULT_MAX;
%constant int ECHOMQ_PROGRESS_MAX = ECHOMQ_PROGRESS_MAX;
%constant int ECHOMQ_JOB_COMPLETED = ECHOMQ_JOB_COMPLETED;
%constant int ECHOMQ_EVENTS_ENQUEUED = ECHOMQ_EVENTS_ENQUEUED;
%constant int ECHOMQ_TARGET_WAIT_MAX_MS = ECHOMQ_TARGET_WAIT_MAX_MS;
%constant int ECHOMQ_PAGE_MAX = ECHOMQ_PAGE_MAX;
%constant int ECHOMQ_WAIT_MAX_MS = ECHOMQ_WAIT_MAX_MS;
%constant int ECHOMQ_WORKER_HANDLERS_DEFAULT = ECHOMQ_WORKER_HANDLERS_DEFAULT;
%constant int ECHOMQ_WORKER_DRAIN_MS_DEFAULT = ECHOMQ_WORKER_DRAIN_MS_DEFAULT;
%constant int ECHOMQ_SCHEDULE_NEXT_MAX = ECHOMQ_SCHEDULE_NEXT_MAX;
%constant int ECHOMQ_SCHEDULE_LIST_MAX = ECHOMQ_SCHEDULE_LIST_MAX;
%constant int ECHOMQ_MISSED_FIRE_ONCE = ECHOMQ_MISSED_FIRE_ONCE;
%constant int ECHOMQ_MISSED_SKIP = ECHOMQ_MISSED_SKIP;
%constant int ECHOMQ_OVERLAP_FIRE = ECHOMQ_OVERLAP_FIRE;
%constant int ECHOMQ_OVERLAP_SKIP = ECHOMQ_OVERLAP_SKIP;
%constant int ECHOMQ_SCHEDULE_UNCHANGED = ECHOMQ_SCHEDULE_UNCHANGED;
%constant int ECHOMQ_SCHEDULE_CREATED = ECHOMQ_SCHEDULE_CREATED;
%constant int ECHOMQ_SCHEDULE_UPDATED = ECHOMQ_SCHEDULE_UPDATED;
/* Bounds in ms past 2^31: Go int64. */
%constant long long ECHOMQ_LEASE_MAX_MS = ECHOMQ_LEASE_MAX_MS;
%constant long long ECHOMQ_DELAY_MAX_MS = ECHOMQ_DELAY_MAX_MS;
%constant long long ECHOMQ_DEDUP_WINDOW_MAX_MS = ECHOMQ_DEDUP_WINDOW_MAX_MS;
%constant long long ECHOMQ_KEEP_MAX_MS = ECHOMQ_KEEP_MAX_MS;
%constant long long ECHOMQ_RATE_PERIOD_MAX_MS = ECHOMQ_RATE_PERIOD_MAX_MS;
%constant int ECHOMQ_WAIT_TIMEOUT_MAX_MS = ECHOMQ_WAIT_TIMEOUT_MAX_MS;

typedef struct echomq_client echomq_client;
typedef struct echomq_job echomq_job;
typedef struct echomq_job_list echomq_job_list;
typedef struct echomq_batch echomq_batch;
typedef struct echomq_lane_list echomq_lane_list;
typedef struct echomq_report echomq_report;
typedef struct echomq_worker echomq_worker;
typedef struct echomq_event_list echomq_event_list;
typedef struct echomq_schedule_list echomq_schedule_list;

const char *echomq_strerror(int status);
unsigned int echomq_version(void);
const char *echomq_version_string(void);
int echomq_check_queue_name(const char *queue);
int echomq_check_group_name(const char *group);

int echomq_client_connect(echomq_client *c, const char *url);
void echomq_client_free(echomq_client *c);
const char *echomq_client_errmsg(const echomq_client *c);
int echomq_client_errcode(const echomq_client *c);
int echomq_client_connected(const echomq_client *c);
void echomq_client_cancel(echomq_client *c);
int echomq_client_ping(echomq_client *c);

const char *echomq_job_group(const echomq_job *j);
const char *echomq_job_last_error(const echomq_job *j);
const char *echomq_job_result_dropped(const echomq_job *j);
const char *echomq_job_name(const echomq_job *j);
size_t echomq_job_header_count(const echomq_job *j);
const char *echomq_job_header_key(const echomq_job *j, size_t i);
const char *echomq_job_header_value(const echomq_job *j, size_t i);
void echomq_job_free(echomq_job *j);
size_t echomq_job_list_count(const echomq_job_list *l);
const echomq_job *echomq_job_list_at(const echomq_job_list *l, size_t i);
void echomq_job_list_free(echomq_job_list *l);

echomq_batch *echomq_batch_create(void);
int echomq_batch_add(echomq_batch *b, const char *group, const char *payload,
                     size_t payload_len);
size_t echomq_batch_count(const echomq_batch *b);
uint64_t echomq_batch_id(const echomq_batch *b, size_t i);
int echomq_batch_add_keyed(echomq_batch *b, const char *group, const char *payload,
                           size_t payload_len, const char *idempotency_key);
int echomq_batch_duplicate(const echomq_batch *b, size_t i);
int echomq_delete_job(echomq_client *c, const char *queue, uint64_t id);
void echomq_batch_clear(echomq_batch *b);
void echomq_batch_free(echomq_batch *b);

int echomq_ack(echomq_client *c, const char *queue, uint64_t id, uint64_t token);
int echomq_ack_result(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                      const char *result, size_t result_len);
int echomq_progress(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                    const char *value, size_t value_len);
int echomq_set_retention(echomq_client *c, const char *queue, int64_t keep_ms, uint64_t keep_last);
int echomq_clear_retention(echomq_client *c, const char *queue);
int echomq_set_events(echomq_client *c, const char *queue, uint64_t max_len, int flags);
int echomq_clear_events(echomq_client *c, const char *queue);
size_t echomq_event_list_count(const echomq_event_list *l);
const char *echomq_event_list_id(const echomq_event_list *l, size_t i);
size_t echomq_event_list_nfields(const echomq_event_list *l, size_t i);
const char *echomq_event_list_name(const echomq_event_list *l, size_t i, size_t k);
void echomq_event_list_free(echomq_event_list *l);
int echomq_extend(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                  int64_t lease_ms, int64_t *lease_until_ms);

int echomq_set_weight(echomq_client *c, const char *queue, const char *group, uint32_t weight);
int echomq_clear_weight(echomq_client *c, const char *queue, const char *group);
int echomq_set_limit(echomq_client *c, const char *queue, const char *group, uint32_t limit);
int echomq_set_limit_burst(echomq_client *c, const char *queue, const char *group, uint32_t limit, uint32_t burst);
int echomq_set_default_timeout(echomq_client *c, const char *queue, int64_t timeout_ms);
int echomq_set_queue_limit(echomq_client *c, const char *queue, uint32_t limit);
int echomq_set_queue_rate(echomq_client *c, const char *queue, uint32_t jobs, int64_t period_ms, uint32_t burst);
int echomq_job_halted(const echomq_job *j);
int echomq_clear_limit(echomq_client *c, const char *queue, const char *group);
int echomq_pause(echomq_client *c, const char *queue, const char *group);
int echomq_resume(echomq_client *c, const char *queue, const char *group);
int echomq_set_default_weight(echomq_client *c, const char *queue, uint32_t weight);
int echomq_set_default_limit(echomq_client *c, const char *queue, uint32_t limit);
int echomq_set_default_max_attempts(echomq_client *c, const char *queue, uint32_t max_attempts);
int echomq_set_rate(echomq_client *c, const char *queue, const char *group, uint32_t jobs,
                    int64_t period_ms, uint32_t burst);
int echomq_clear_rate(echomq_client *c, const char *queue, const char *group);
int echomq_set_default_rate(echomq_client *c, const char *queue, uint32_t jobs, int64_t period_ms,
                            uint32_t burst);
int echomq_throttle(echomq_client *c, const char *queue, const char *group, int64_t ms);
int echomq_set_cap(echomq_client *c, const char *queue, const char *group, uint64_t cap);
int echomq_clear_cap(echomq_client *c, const char *queue, const char *group);
int echomq_set_default_cap(echomq_client *c, const char *queue, uint64_t cap);
int echomq_set_cost_mode(echomq_client *c, const char *queue, uint64_t quantum);
int echomq_get_cost_mode(echomq_client *c, const char *queue, uint64_t *OUT_U64);
int echomq_set_wait_figures(echomq_client *c, const char *queue, uint32_t window_s);
int echomq_charge(echomq_client *c, const char *queue, const char *group, uint64_t cost);

size_t echomq_lane_list_count(const echomq_lane_list *l);
void echomq_lane_list_free(echomq_lane_list *l);
int echomq_redrive(echomq_client *c, const char *queue, const uint64_t *ids, size_t n,
                   uint64_t *redriven);
int echomq_redrive_all(echomq_client *c, const char *queue, uint64_t *redriven);
int echomq_worker_start(echomq_worker *w);
int echomq_worker_done(echomq_worker *w, const echomq_job *job);
int echomq_worker_done_result(echomq_worker *w, const echomq_job *job, const char *result,
                              size_t result_len);
int echomq_worker_fail(echomq_worker *w, const echomq_job *job, const char *reason,
                       int64_t retry_delay_ms);
int echomq_worker_discard(echomq_worker *w, const echomq_job *job, const char *reason);

%inline %{
/* done (ok != 0) or fail with a job report of `cost` units (0 = measured)
 * and, for done, the job's result (empty = none) or why it was dropped
 * ("" = not dropped): one settlement carries all. The report struct stays
 * on the C side. */
int emqgo_worker_settle(echomq_worker *w, const echomq_job *job, int ok, const char *reason,
                        int64_t retry_delay_ms, uint64_t cost, const char *result, size_t result_len,
                        const char *dropped) {
  echomq_job_report r = ECHOMQ_JOB_REPORT_INIT;
  r.cost = cost;
  r.result = result;
  r.result_len = result_len;
  r.result_dropped = dropped[0] ? dropped : NULL;
  return ok ? echomq_worker_done_with(w, job, &r) : echomq_worker_fail_with(w, job, reason, retry_delay_ms, &r);
}
%}
int echomq_worker_stop(echomq_worker *w, int mode, int64_t timeout_ms);
void echomq_worker_free(echomq_worker *w);

int echomq_shards_create(echomq_client *c, const char *queue, uint32_t shards);

size_t echomq_report_count(const echomq_report *r);
const char *echomq_report_at(const echomq_report *r, size_t i);
void echomq_report_free(echomq_report *r);
const char *echomq_report_cursor(const echomq_report *r);

/* ---- shims -------------------------------------------------------------- */

%apply (char *BUF, size_t CAP) { (char *buf, size_t cap) };
%apply (int64_t *NUMS, size_t N) { (int64_t *nums, size_t n) };
%apply (int64_t *NUMS, size_t N) { (int64_t *statuses, size_t sn) };
%apply (const uint64_t *IDS, size_t N) { (const uint64_t *tokens, size_t tn) };

%ignore emqgo_lane_copy;
%ignore emqgo_enqueue_options;
%inline %{
/* Numbers of a job, in this order (EMQGO_JOB_* indexes). */
enum {
  EMQGO_JOB_ID = 0,
  EMQGO_JOB_TOKEN,
  EMQGO_JOB_MAX_ATTEMPTS,
  EMQGO_JOB_LEASE_UNTIL_MS,
  EMQGO_JOB_ENQUEUED_AT_MS,
  EMQGO_JOB_DEAD_AT_MS,
  EMQGO_JOB_PAYLOAD_LEN,
  EMQGO_JOB_ATTEMPT,
  EMQGO_JOB_STATE,
  EMQGO_JOB_DUE_AT_MS,
  EMQGO_JOB_STARTED_AT_MS,
  EMQGO_JOB_FINISHED_AT_MS,
  EMQGO_JOB_PROGRESS_LEN,
  EMQGO_JOB_RESULT_LEN,
  EMQGO_JOB_NUMS
};

/* Numbers of the queue stats, in this order (EMQGO_STATS_* indexes). */
enum {
  EMQGO_STATS_LANES = 0,
  EMQGO_STATS_RING,
  EMQGO_STATS_PENDING,
  EMQGO_STATS_LEASED,
  EMQGO_STATS_DELAYED,
  EMQGO_STATS_DEAD,
  EMQGO_STATS_PAUSED,
  EMQGO_STATS_ENQUEUED_TOTAL,
  EMQGO_STATS_CLAIMED_TOTAL,
  EMQGO_STATS_ACKED_TOTAL,
  EMQGO_STATS_FAILED_TOTAL,
  EMQGO_STATS_DEAD_TOTAL,
  EMQGO_STATS_DEFAULT_WEIGHT,
  EMQGO_STATS_DEFAULT_LIMIT,
  EMQGO_STATS_DEFAULT_MAX_ATTEMPTS,
  EMQGO_STATS_SERVER_TIME_MS,
  EMQGO_STATS_TENANTS,
  EMQGO_STATS_CANCELED_TOTAL,
  EMQGO_STATS_EXPIRED_TOTAL,
  EMQGO_STATS_BURSTING,
  EMQGO_STATS_NUMS
};

/* Numbers of a queue's lifecycle settings, in this order (EMQGO_LIFE_*
 * indexes; tokens in thousandths, -1 without a rate). */
enum {
  EMQGO_LIFE_DEFAULT_TIMEOUT_MS = 0,
  EMQGO_LIFE_QUEUE_LIMIT,
  EMQGO_LIFE_RATE_JOBS,
  EMQGO_LIFE_RATE_PERIOD_MS,
  EMQGO_LIFE_RATE_BURST,
  EMQGO_LIFE_LEASED,
  EMQGO_LIFE_TOKENS_MILLI,
  EMQGO_LIFE_NEXT_TOKEN_AT_MS,
  EMQGO_LIFE_NUMS
};

/* Numbers of a lane, in this order (EMQGO_LANE_* indexes). */
enum {
  EMQGO_LANE_DEPTH = 0,
  EMQGO_LANE_ACTIVE,
  EMQGO_LANE_LIMIT,
  EMQGO_LANE_WEIGHT,
  EMQGO_LANE_LIMIT_IS_DEFAULT,
  EMQGO_LANE_WEIGHT_IS_DEFAULT,
  EMQGO_LANE_PAUSED,
  EMQGO_LANE_SERVICEABLE,
  EMQGO_LANE_SERVED,
  EMQGO_LANE_OLDEST_ENQUEUED_AT_MS,
  EMQGO_LANE_KNOWN,
  EMQGO_LANE_DELAYED,
  EMQGO_LANE_RATE_JOBS,
  EMQGO_LANE_RATE_PERIOD_MS,
  EMQGO_LANE_RATE_BURST,
  EMQGO_LANE_RATE_IS_DEFAULT,
  EMQGO_LANE_TOKENS_MILLI,
  EMQGO_LANE_NEXT_TOKEN_AT_MS,
  EMQGO_LANE_CAP,
  EMQGO_LANE_CAP_IS_DEFAULT,
  EMQGO_LANE_TENANT_LEN,     /* bytes of the group name that are the tenant (0 = none) */
  EMQGO_LANE_IS_TENANT,
  EMQGO_LANE_WAIT_SAMPLES,
  EMQGO_LANE_WAIT_P50_MS,    /* doubles as their IEEE 754 bits */
  EMQGO_LANE_WAIT_P99_MS,
  EMQGO_LANE_WINDOW_CLAIMS,
  EMQGO_LANE_SHARE,
  EMQGO_LANE_FAIR_SHARE,
  EMQGO_LANE_COST_V,
  EMQGO_LANE_SITS_OUT,
  EMQGO_LANE_BURST,
  EMQGO_LANE_BURSTING,
  EMQGO_LANE_NUMS
};

/* A client with the given options; NULL on bad options or ENOMEM. */
echomq_client *emqgo_client_create(int connect_timeout_ms, int command_timeout_ms,
                                   size_t max_payload_bytes, int wait_replicas, int wait_aof,
                                   int wait_timeout_ms) {
  echomq_client_options o = ECHOMQ_CLIENT_OPTIONS_INIT;
  echomq_client *c = NULL;
  o.connect_timeout_ms = connect_timeout_ms;
  o.command_timeout_ms = command_timeout_ms;
  o.max_payload_bytes = max_payload_bytes;
  o.wait_replicas = wait_replicas;
  o.wait_aof = wait_aof;
  o.wait_timeout_ms = wait_timeout_ms;
  if (echomq_client_new(&c, &o) != ECHOMQ_OK) return NULL;
  return c;
}

/* Copy the numbers of a job into nums (EMQGO_JOB_NUMS entries). */
void emqgo_job_numbers(const echomq_job *j, int64_t *nums, size_t n) {
  int64_t v[EMQGO_JOB_NUMS];
  size_t i;
  v[EMQGO_JOB_ID] = (int64_t)echomq_job_id(j);
  v[EMQGO_JOB_TOKEN] = (int64_t)echomq_job_token(j);
  v[EMQGO_JOB_MAX_ATTEMPTS] = (int64_t)echomq_job_max_attempts(j);
  v[EMQGO_JOB_LEASE_UNTIL_MS] = echomq_job_lease_until_ms(j);
  v[EMQGO_JOB_ENQUEUED_AT_MS] = echomq_job_enqueued_at_ms(j);
  v[EMQGO_JOB_DEAD_AT_MS] = echomq_job_dead_at_ms(j);
  v[EMQGO_JOB_PAYLOAD_LEN] = (int64_t)echomq_job_payload_len(j);
  v[EMQGO_JOB_ATTEMPT] = (int64_t)echomq_job_attempt(j);
  v[EMQGO_JOB_STATE] = (int64_t)echomq_job_state_of(j);
  v[EMQGO_JOB_DUE_AT_MS] = echomq_job_due_at_ms(j);
  v[EMQGO_JOB_STARTED_AT_MS] = echomq_job_started_at_ms(j);
  v[EMQGO_JOB_FINISHED_AT_MS] = echomq_job_finished_at_ms(j);
  {
    size_t pl = 0, rl = 0;
    echomq_job_progress(j, &pl);
    echomq_job_result(j, &rl);
    v[EMQGO_JOB_PROGRESS_LEN] = (int64_t)pl;
    v[EMQGO_JOB_RESULT_LEN] = (int64_t)rl;
  }
  for (i = 0; i < n && i < EMQGO_JOB_NUMS; i++) nums[i] = v[i];
}

/* Copy up to cap bytes of a job's progress (what = 0) or result (1) into buf. */
void emqgo_job_outcome_copy(const echomq_job *j, int what, char *buf, size_t cap) {
  size_t len = 0;
  const char *p = what ? echomq_job_result(j, &len) : echomq_job_progress(j, &len);
  if (p != NULL && len > 0) memcpy(buf, p, len < cap ? len : cap);
}


/* Options of an enqueue, in this order (EMQGO_EOPT_* indexes): one shim
 * takes them all, so every option combines with every other. */
enum {
  EMQGO_EOPT_DELAY_MS = 0,
  EMQGO_EOPT_MAX_ATTEMPTS,
  EMQGO_EOPT_DEDUP_WINDOW_MS,
  EMQGO_EOPT_KEEP_MS,
  EMQGO_EOPT_KEEP_LAST,
  EMQGO_EOPT_COST_ESTIMATE,
  EMQGO_EOPT_AT_MS,
  EMQGO_EOPT_TIMEOUT_MS,
  EMQGO_EOPT_EXPIRES_AT_MS,
  EMQGO_EOPT_TTL_MS,
  EMQGO_EOPT_EXPIRE_FLAGS,
  EMQGO_EOPT_NUMS
};

/* The enqueue options from nums (EMQGO_EOPT_NUMS entries); the C library
 * checks their values. */
static int emqgo_enqueue_options(const int64_t *nums, size_t n, echomq_enqueue_options *o) {
  echomq_enqueue_options init = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  *o = init;
  if (n != EMQGO_EOPT_NUMS || nums[EMQGO_EOPT_MAX_ATTEMPTS] < 0 || nums[EMQGO_EOPT_MAX_ATTEMPTS] > UINT32_MAX ||
      nums[EMQGO_EOPT_KEEP_LAST] < 0 || nums[EMQGO_EOPT_COST_ESTIMATE] < 0 || nums[EMQGO_EOPT_AT_MS] < 0)
    return ECHOMQ_EINVAL;
  o->delay_ms = nums[EMQGO_EOPT_DELAY_MS];
  o->max_attempts = (uint32_t)nums[EMQGO_EOPT_MAX_ATTEMPTS];
  o->dedup_window_ms = nums[EMQGO_EOPT_DEDUP_WINDOW_MS];
  o->keep_ms = nums[EMQGO_EOPT_KEEP_MS];
  o->keep_last = (uint64_t)nums[EMQGO_EOPT_KEEP_LAST];
  o->cost_estimate = (uint64_t)nums[EMQGO_EOPT_COST_ESTIMATE];
  o->at_ms = nums[EMQGO_EOPT_AT_MS];
  if (nums[EMQGO_EOPT_EXPIRE_FLAGS] < 0 || nums[EMQGO_EOPT_EXPIRE_FLAGS] > UINT32_MAX) return ECHOMQ_EINVAL;
  o->timeout_ms = nums[EMQGO_EOPT_TIMEOUT_MS];
  o->expires_at_ms = nums[EMQGO_EOPT_EXPIRES_AT_MS];
  o->ttl_ms = nums[EMQGO_EOPT_TTL_MS];
  o->expire_flags = (unsigned int)nums[EMQGO_EOPT_EXPIRE_FLAGS];
  return ECHOMQ_OK;
}

/* A job's name ("" = none) and headers as Go passes them, "key\tvalue"
 * entries joined by "\n" ("" = none; Go refuses those bytes in a key or
 * value, as the library would), set on *o. The entries are split in a copy,
 * *buf, which the caller frees after the call (NULL when there is none).
 * One entry more than ECHOMQ_HEADERS_MAX is kept, for the library to
 * refuse. */
#ifndef SWIG /* C only: no wrapper */
typedef struct { echomq_header h[ECHOMQ_HEADERS_MAX + 1]; char *buf; } emqgo_meta;
static int emqgo_set_meta(echomq_enqueue_options *o, const char *name, const char *headers, emqgo_meta *m) {
  size_t n = 0;
  char *p;
  m->buf = NULL;
  o->name = name[0] ? name : NULL;
  if (!headers[0]) return ECHOMQ_OK;
  m->buf = strdup(headers);
  if (!m->buf) return ECHOMQ_ENOMEM;
  for (p = m->buf; p && n <= ECHOMQ_HEADERS_MAX; n++) {
    char *end = strchr(p, '\n'), *tab;
    if (end) *end = '\0';
    tab = strchr(p, '\t');
    if (!tab) return ECHOMQ_EINVAL;
    *tab = '\0';
    m->h[n].key = p;
    m->h[n].value = tab + 1;
    p = end ? end + 1 : NULL;
  }
  o->headers = m->h;
  o->header_count = n;
  return ECHOMQ_OK;
}
#endif

/* Enqueue one job with the options in nums (EMQGO_EOPT_NUMS entries), an
 * idempotency key ("" = none), a name and headers (emqgo_set_meta):
 * ECHOMQ_DUPLICATE (the first job's id in *OUT_U64) when the key was seen
 * within its window. */
int emqgo_enqueue(echomq_client *c, const char *queue, const char *group, const char *payload,
                  size_t payload_len, int64_t *nums, size_t n, const char *key, const char *name,
                  const char *headers, uint64_t *OUT_U64) {
  echomq_enqueue_options o;
  emqgo_meta m;
  int rc = emqgo_enqueue_options(nums, n, &o);
  *OUT_U64 = 0;
  if (rc != ECHOMQ_OK) return rc;
  o.idempotency_key = key[0] ? key : NULL;
  rc = emqgo_set_meta(&o, name, headers, &m);
  if (rc == ECHOMQ_OK) rc = echomq_enqueue(c, queue, group, payload, payload_len, &o, OUT_U64);
  free(m.buf);
  return rc;
}

/* Enqueue a batch with the options in nums (its keys are per job), a name
 * and headers for all its jobs. */
int emqgo_enqueue_batch(echomq_client *c, const char *queue, echomq_batch *b, int64_t *nums, size_t n,
                        const char *name, const char *headers) {
  echomq_enqueue_options o;
  emqgo_meta m;
  int rc = emqgo_enqueue_options(nums, n, &o);
  if (rc != ECHOMQ_OK) return rc;
  rc = emqgo_set_meta(&o, name, headers, &m);
  if (rc == ECHOMQ_OK) rc = echomq_enqueue_batch(c, queue, b, &o);
  free(m.buf);
  return rc;
}

/* Wait for a job: ECHOMQ_OK with the handle's address in *OUT_HANDLE,
 * ECHOMQ_PENDING (0 there) at the timeout. */
int emqgo_wait_job(echomq_client *c, const char *queue, uint64_t id, int64_t timeout_ms,
                   uint64_t *OUT_HANDLE) {
  echomq_job *j = NULL;
  int rc = echomq_wait_job(c, queue, id, timeout_ms, &j);
  *OUT_HANDLE = (uint64_t)(uintptr_t)j;
  return rc;
}

int emqgo_events_read(echomq_client *c, const char *queue, const char *after, size_t count,
                      int64_t block_ms, uint64_t *OUT_HANDLE) {
  echomq_event_list *l = NULL;
  int rc = echomq_events_read(c, queue, after, count, block_ms, &l);
  *OUT_HANDLE = (uint64_t)(uintptr_t)l;
  return rc;
}

/* The length of field k of entry i, and a copy of up to cap of its bytes. */
int64_t emqgo_event_value_len(const echomq_event_list *l, size_t i, size_t k) {
  size_t len = 0;
  echomq_event_list_value(l, i, k, &len);
  return (int64_t)len;
}
void emqgo_event_value_copy(const echomq_event_list *l, size_t i, size_t k, char *buf, size_t cap) {
  size_t len = 0;
  const char *p = echomq_event_list_value(l, i, k, &len);
  if (p != NULL && len > 0) memcpy(buf, p, len < cap ? len : cap);
}

/* Copy up to cap payload bytes of a job into buf (a Go []byte). */
void emqgo_job_payload_copy(const echomq_job *j, char *buf, size_t cap) {
  size_t len = 0;
  const char *p = echomq_job_payload(j, &len);
  if (p != NULL && len > 0) memcpy(buf, p, len < cap ? len : cap);
}





int emqgo_get_job(echomq_client *c, const char *queue, uint64_t id, uint64_t *OUT_HANDLE) {
  echomq_job *j = NULL;
  int rc = echomq_get_job(c, queue, id, &j);
  *OUT_HANDLE = (uint64_t)(uintptr_t)j;
  return rc;
}

/* One purge step: nums = {cursor (in and out), removed, more}. */
int emqgo_purge_lane(echomq_client *c, const char *queue, const char *group, uint32_t max,
                     int clear_settings, int64_t *nums, size_t n) {
  uint64_t cursor, removed = 0;
  int more = 0, rc;
  if (n < 3) return ECHOMQ_EINVAL;
  cursor = (uint64_t)nums[0];
  rc = echomq_purge_lane(c, queue, group, max, clear_settings, &cursor, &removed, &more);
  nums[0] = (int64_t)cursor;
  nums[1] = (int64_t)removed;
  nums[2] = more;
  return rc;
}

int emqgo_queues(echomq_client *c, uint64_t *OUT_HANDLE) {
  echomq_report *r = NULL;
  int rc = echomq_queues(c, &r);
  *OUT_HANDLE = (uint64_t)(uintptr_t)r;
  return rc;
}

int emqgo_shards(echomq_client *c, const char *queue, uint64_t *OUT_HANDLE) {
  echomq_report *r = NULL;
  int rc = echomq_shards(c, queue, &r);
  *OUT_HANDLE = (uint64_t)(uintptr_t)r;
  return rc;
}

int emqgo_claim(echomq_client *c, const char *queue, int64_t lease_ms,
                uint64_t *OUT_HANDLE) {
  echomq_job *j = NULL;
  int rc = echomq_claim(c, queue, lease_ms, &j);
  *OUT_HANDLE = (uint64_t)(uintptr_t)j;
  return rc;
}

int emqgo_wclaim(echomq_client *c, const char *queue, int64_t lease_ms, uint32_t max,
                 uint64_t *OUT_HANDLE) {
  echomq_job_list *l = NULL;
  int rc = echomq_wclaim(c, queue, lease_ms, max, &l);
  *OUT_HANDLE = (uint64_t)(uintptr_t)l;
  return rc;
}

int emqgo_bclaim(echomq_client *c, const char *queue, int64_t lease_ms,
                 int64_t timeout_ms, uint64_t *OUT_HANDLE) {
  echomq_job *j = NULL;
  int rc = echomq_bclaim(c, queue, lease_ms, timeout_ms, &j);
  *OUT_HANDLE = (uint64_t)(uintptr_t)j;
  return rc;
}

int emqgo_ack_claim(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                    int64_t lease_ms, uint64_t *OUT_HANDLE) {
  echomq_job *j = NULL;
  int rc = echomq_ack_claim(c, queue, id, token, lease_ms, &j);
  *OUT_HANDLE = (uint64_t)(uintptr_t)j;
  return rc;
}

int emqgo_fail(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
               const char *reason, int64_t retry_delay_ms, int64_t *OUT_I64) {
  int outcome = 0;
  int rc = echomq_fail(c, queue, id, token, reason, retry_delay_ms, &outcome);
  *OUT_I64 = outcome;
  return rc;
}

/* Queue stats into nums (EMQGO_STATS_NUMS entries). */
int emqgo_stats(echomq_client *c, const char *queue, int64_t *nums, size_t n) {
  echomq_queue_stats s;
  int64_t v[EMQGO_STATS_NUMS];
  size_t i;
  int rc;
  memset(&s, 0, sizeof s);
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  rc = echomq_stats(c, queue, &s);
  if (rc != ECHOMQ_OK) return rc;
  v[EMQGO_STATS_LANES] = (int64_t)s.lanes;
  v[EMQGO_STATS_RING] = (int64_t)s.ring;
  v[EMQGO_STATS_PENDING] = (int64_t)s.pending;
  v[EMQGO_STATS_LEASED] = (int64_t)s.leased;
  v[EMQGO_STATS_DELAYED] = (int64_t)s.delayed;
  v[EMQGO_STATS_DEAD] = (int64_t)s.dead;
  v[EMQGO_STATS_PAUSED] = (int64_t)s.paused;
  v[EMQGO_STATS_ENQUEUED_TOTAL] = (int64_t)s.enqueued_total;
  v[EMQGO_STATS_CLAIMED_TOTAL] = (int64_t)s.claimed_total;
  v[EMQGO_STATS_ACKED_TOTAL] = (int64_t)s.acked_total;
  v[EMQGO_STATS_FAILED_TOTAL] = (int64_t)s.failed_total;
  v[EMQGO_STATS_DEAD_TOTAL] = (int64_t)s.dead_total;
  v[EMQGO_STATS_DEFAULT_WEIGHT] = (int64_t)s.default_weight;
  v[EMQGO_STATS_DEFAULT_LIMIT] = (int64_t)s.default_limit;
  v[EMQGO_STATS_DEFAULT_MAX_ATTEMPTS] = (int64_t)s.default_max_attempts;
  v[EMQGO_STATS_SERVER_TIME_MS] = s.server_time_ms;
  v[EMQGO_STATS_TENANTS] = (int64_t)s.tenants;
  v[EMQGO_STATS_CANCELED_TOTAL] = (int64_t)s.canceled_total;
  v[EMQGO_STATS_EXPIRED_TOTAL] = (int64_t)s.expired_total;
  v[EMQGO_STATS_BURSTING] = (int64_t)s.bursting;
  for (i = 0; i < n && i < EMQGO_STATS_NUMS; i++) nums[i] = v[i];
  return rc;
}

static void emqgo_lane_copy(const echomq_lane_info *l, int64_t *nums, size_t n) {
  int64_t v[EMQGO_LANE_NUMS];
  size_t i;
  v[EMQGO_LANE_DEPTH] = (int64_t)l->depth;
  v[EMQGO_LANE_ACTIVE] = (int64_t)l->active;
  v[EMQGO_LANE_LIMIT] = (int64_t)l->limit;
  v[EMQGO_LANE_WEIGHT] = (int64_t)l->weight;
  v[EMQGO_LANE_LIMIT_IS_DEFAULT] = l->limit_is_default;
  v[EMQGO_LANE_WEIGHT_IS_DEFAULT] = l->weight_is_default;
  v[EMQGO_LANE_PAUSED] = l->paused;
  v[EMQGO_LANE_SERVICEABLE] = l->serviceable;
  v[EMQGO_LANE_SERVED] = (int64_t)l->served;
  v[EMQGO_LANE_OLDEST_ENQUEUED_AT_MS] = l->oldest_enqueued_at_ms;
  v[EMQGO_LANE_KNOWN] = l->known;
  v[EMQGO_LANE_DELAYED] = (int64_t)l->delayed;
  v[EMQGO_LANE_RATE_JOBS] = (int64_t)l->rate_jobs;
  v[EMQGO_LANE_RATE_PERIOD_MS] = l->rate_period_ms;
  v[EMQGO_LANE_RATE_BURST] = (int64_t)l->rate_burst;
  v[EMQGO_LANE_RATE_IS_DEFAULT] = l->rate_is_default;
  v[EMQGO_LANE_TOKENS_MILLI] = l->tokens < 0 ? -1 : (int64_t)(l->tokens * 1000.0);
  v[EMQGO_LANE_NEXT_TOKEN_AT_MS] = l->next_token_at_ms;
  v[EMQGO_LANE_CAP] = (int64_t)l->cap;
  v[EMQGO_LANE_CAP_IS_DEFAULT] = l->cap_is_default;
  /* The tenant is a prefix of the group name ("T" of "T/L" or "T/"). */
  v[EMQGO_LANE_TENANT_LEN] = (int64_t)strlen(l->tenant);
  v[EMQGO_LANE_IS_TENANT] = l->is_tenant;
  v[EMQGO_LANE_WAIT_SAMPLES] = (int64_t)l->wait_samples;
  memcpy(&v[EMQGO_LANE_WAIT_P50_MS], &l->wait_p50_ms, sizeof(double));
  memcpy(&v[EMQGO_LANE_WAIT_P99_MS], &l->wait_p99_ms, sizeof(double));
  v[EMQGO_LANE_WINDOW_CLAIMS] = (int64_t)l->window_claims;
  memcpy(&v[EMQGO_LANE_SHARE], &l->share, sizeof(double));
  memcpy(&v[EMQGO_LANE_FAIR_SHARE], &l->fair_share, sizeof(double));
  memcpy(&v[EMQGO_LANE_COST_V], &l->cost_v, sizeof(double));
  v[EMQGO_LANE_SITS_OUT] = l->sits_out;
  v[EMQGO_LANE_BURST] = l->burst;
  v[EMQGO_LANE_BURSTING] = l->bursting;
  for (i = 0; i < n && i < EMQGO_LANE_NUMS; i++) nums[i] = v[i];
}

/* The queue's wait figures window (s, 0 = off) as a uint64 out value. */
int emqgo_get_wait_figures(echomq_client *c, const char *queue, uint64_t *OUT_U64) {
  uint32_t w = 0;
  int rc = echomq_get_wait_figures(c, queue, &w);
  *OUT_U64 = w;
  return rc;
}

/* One lane's numbers into nums (EMQGO_LANE_NUMS entries). */
int emqgo_lane(echomq_client *c, const char *queue, const char *group, int64_t *nums,
               size_t n) {
  echomq_lane_info l;
  int rc;
  memset(&l, 0, sizeof l);
  l.version = ECHOMQ_LANE_INFO_VERSION;
  rc = echomq_lane(c, queue, group, &l);
  if (rc == ECHOMQ_OK) emqgo_lane_copy(&l, nums, n);
  return rc;
}

int emqgo_lanes(echomq_client *c, const char *queue, const char *after, size_t count,
                uint64_t *OUT_HANDLE) {
  echomq_lane_list *l = NULL;
  int rc = echomq_lanes(c, queue, after[0] ? after : NULL, count, &l);
  *OUT_HANDLE = (uint64_t)(uintptr_t)l;
  return rc;
}

/* Group name of entry i of a lane list ("" if out of range). */
const char *emqgo_lane_list_group(const echomq_lane_list *l, size_t i) {
  const echomq_lane_info *info = echomq_lane_list_at(l, i);
  return info ? info->group : "";
}

/* Numbers of entry i of a lane list into nums (EMQGO_LANE_NUMS entries). */
void emqgo_lane_list_numbers(const echomq_lane_list *l, size_t i, int64_t *nums, size_t n) {
  const echomq_lane_info *info = echomq_lane_list_at(l, i);
  if (info) emqgo_lane_copy(info, nums, n);
}

/* Cursor after a lane list page ("" when it was the last page). */
const char *emqgo_lane_list_cursor(const echomq_lane_list *l) {
  const char *next = echomq_lane_list_next(l);
  return next ? next : "";
}

int emqgo_dead(echomq_client *c, const char *queue, uint64_t offset, size_t count,
               uint64_t *OUT_HANDLE) {
  echomq_job_list *l = NULL;
  int rc = echomq_dead(c, queue, offset, count, &l);
  *OUT_HANDLE = (uint64_t)(uintptr_t)l;
  return rc;
}

int emqgo_verify(echomq_client *c, const char *queue, uint64_t *OUT_HANDLE) {
  echomq_report *r = NULL;
  int rc = echomq_verify(c, queue, &r);
  *OUT_HANDLE = (uint64_t)(uintptr_t)r;
  return rc;
}

/* One repair step: cursor "" starts; the next one is in the report. */
int emqgo_repair(echomq_client *c, const char *queue, int apply, const char *cursor,
                 size_t count, uint64_t *OUT_HANDLE) {
  echomq_report *r = NULL;
  int rc = echomq_repair(c, queue, apply, cursor, count, &r);
  *OUT_HANDLE = (uint64_t)(uintptr_t)r;
  return rc;
}

/* Doctor: acl_user "" checks the connected user. */
int emqgo_doctor(echomq_client *c, const char *queue, const char *acl_user,
                 uint64_t *OUT_HANDLE) {
  echomq_report *r = NULL;
  int rc = echomq_doctor(c, queue, acl_user[0] ? acl_user : NULL, &r, NULL);
  *OUT_HANDLE = (uint64_t)(uintptr_t)r;
  return rc;
}

/* Ack many: ids and tokens, one each per job; statuses gets one status per
 * job. EINVAL (nothing sent) when the three lengths differ. */
int emqgo_ack_many(echomq_client *c, const char *queue, const uint64_t *ids, size_t n,
                   const uint64_t *tokens, size_t tn, int64_t *statuses, size_t sn) {
  int *st;
  size_t i;
  int rc;
  if (tn != n || sn != n || n == 0) return ECHOMQ_EINVAL;
  st = (int *)malloc(n * sizeof *st);
  if (!st) return ECHOMQ_ENOMEM;
  rc = echomq_ack_many(c, queue, ids, tokens, n, st, NULL);
  for (i = 0; i < n; i++) statuses[i] = rc == ECHOMQ_OK ? st[i] : rc;
  free(st);
  return rc;
}

int emqgo_claim_batch(echomq_client *c, const char *queue, int64_t lease_ms, uint32_t n,
                      int weighted, uint64_t *OUT_HANDLE) {
  echomq_job_list *l = NULL;
  int rc = echomq_claim_batch(c, queue, lease_ms, n, weighted, &l);
  *OUT_HANDLE = (uint64_t)(uintptr_t)l;
  return rc;
}

/* Options of a worker engine, in this order (EMQGO_WOPT_* indexes). */
enum {
  EMQGO_WOPT_SLOTS = 0,
  EMQGO_WOPT_PREFETCH,
  EMQGO_WOPT_LEASE_MS,
  EMQGO_WOPT_WEIGHTED,
  EMQGO_WOPT_RETRY_DELAY_MS,
  EMQGO_WOPT_IDLE_WAIT_MS,
  EMQGO_WOPT_CONNECT_TIMEOUT_MS,
  EMQGO_WOPT_COMMAND_TIMEOUT_MS,
  EMQGO_WOPT_WAIT_REPLICAS,
  EMQGO_WOPT_WAIT_AOF,
  EMQGO_WOPT_WAIT_TIMEOUT_MS,
  EMQGO_WOPT_TARGET_WAIT_MS,
  EMQGO_WOPT_REPORT_OUTCOMES, /* worker options version 4 */
  EMQGO_WOPT_IDLE_TIMEOUT_MS,
  EMQGO_WOPT_NUMS
};

/* The engine's default options into nums (EMQGO_WOPT_NUMS entries). */
void emqgo_worker_defaults(int64_t *nums, size_t n) {
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  int64_t v[EMQGO_WOPT_NUMS];
  size_t i;
  v[EMQGO_WOPT_SLOTS] = o.slots;
  v[EMQGO_WOPT_PREFETCH] = o.prefetch;
  v[EMQGO_WOPT_LEASE_MS] = o.lease_ms;
  v[EMQGO_WOPT_WEIGHTED] = o.weighted;
  v[EMQGO_WOPT_RETRY_DELAY_MS] = o.retry_delay_ms;
  v[EMQGO_WOPT_IDLE_WAIT_MS] = o.idle_wait_ms;
  v[EMQGO_WOPT_CONNECT_TIMEOUT_MS] = o.connect_timeout_ms;
  v[EMQGO_WOPT_COMMAND_TIMEOUT_MS] = o.command_timeout_ms;
  v[EMQGO_WOPT_WAIT_REPLICAS] = o.wait_replicas;
  v[EMQGO_WOPT_WAIT_AOF] = o.wait_aof;
  v[EMQGO_WOPT_WAIT_TIMEOUT_MS] = o.wait_timeout_ms;
  v[EMQGO_WOPT_TARGET_WAIT_MS] = o.target_wait_ms;
  v[EMQGO_WOPT_REPORT_OUTCOMES] = o.report_outcomes;
  v[EMQGO_WOPT_IDLE_TIMEOUT_MS] = o.idle_timeout_ms;
  for (i = 0; i < n && i < EMQGO_WOPT_NUMS; i++) nums[i] = v[i];
}

/* A worker engine from options in nums (EMQGO_WOPT_NUMS entries): returns
 * the status, and the handle (0 on error) in OUT_HANDLE. */
int emqgo_worker_create(const char *url, const char *queue, int64_t *nums, size_t n,
                        uint64_t *OUT_HANDLE) {
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  echomq_worker *w = NULL;
  int rc;
  *OUT_HANDLE = 0;
  if (n != EMQGO_WOPT_NUMS) return ECHOMQ_EINVAL;
  if (nums[EMQGO_WOPT_SLOTS] < 0 || nums[EMQGO_WOPT_SLOTS] > ECHOMQ_BATCH_MAX ||
      nums[EMQGO_WOPT_PREFETCH] < 0 || nums[EMQGO_WOPT_PREFETCH] > ECHOMQ_BATCH_MAX ||
      nums[EMQGO_WOPT_CONNECT_TIMEOUT_MS] > 2147483647 ||
      nums[EMQGO_WOPT_COMMAND_TIMEOUT_MS] > 2147483647 ||
      nums[EMQGO_WOPT_WAIT_REPLICAS] < -1 || nums[EMQGO_WOPT_WAIT_REPLICAS] > 2147483647 ||
      nums[EMQGO_WOPT_WAIT_AOF] < 0 || nums[EMQGO_WOPT_WAIT_AOF] > 1 ||
      nums[EMQGO_WOPT_WAIT_TIMEOUT_MS] < 0 || nums[EMQGO_WOPT_WAIT_TIMEOUT_MS] > 2147483647 ||
      nums[EMQGO_WOPT_TARGET_WAIT_MS] < 0 || nums[EMQGO_WOPT_TARGET_WAIT_MS] > ECHOMQ_TARGET_WAIT_MAX_MS ||
      nums[EMQGO_WOPT_REPORT_OUTCOMES] < 0 || nums[EMQGO_WOPT_REPORT_OUTCOMES] > 1)
    return ECHOMQ_EINVAL;
  o.slots = (unsigned int)nums[EMQGO_WOPT_SLOTS];
  o.prefetch = (unsigned int)nums[EMQGO_WOPT_PREFETCH];
  o.lease_ms = nums[EMQGO_WOPT_LEASE_MS];
  o.weighted = nums[EMQGO_WOPT_WEIGHTED] != 0;
  o.retry_delay_ms = nums[EMQGO_WOPT_RETRY_DELAY_MS];
  o.idle_wait_ms = nums[EMQGO_WOPT_IDLE_WAIT_MS];
  o.connect_timeout_ms = (int)nums[EMQGO_WOPT_CONNECT_TIMEOUT_MS];
  o.command_timeout_ms = (int)nums[EMQGO_WOPT_COMMAND_TIMEOUT_MS];
  o.wait_replicas = (int)nums[EMQGO_WOPT_WAIT_REPLICAS];
  o.wait_aof = (int)nums[EMQGO_WOPT_WAIT_AOF];
  o.wait_timeout_ms = (int)nums[EMQGO_WOPT_WAIT_TIMEOUT_MS];
  o.target_wait_ms = (int)nums[EMQGO_WOPT_TARGET_WAIT_MS];
  o.report_outcomes = (int)nums[EMQGO_WOPT_REPORT_OUTCOMES];
  o.idle_timeout_ms = nums[EMQGO_WOPT_IDLE_TIMEOUT_MS];
  rc = echomq_worker_new(&w, url, queue, &o);
  *OUT_HANDLE = (uint64_t)(uintptr_t)w;
  return rc;
}

/* The engine's last error message into buf (a Go []byte); returns its status. */
int emqgo_worker_last_error(echomq_worker *w, char *buf, size_t cap) {
  return echomq_worker_last_error(w, buf, cap);
}

/* The lifecycle (echomq/lifecycle.h). A cancel's earlier state in
 * *OUT_I64; the next halted job's id, token and why in nums (3 entries). */
int emqgo_cancel(echomq_client *c, const char *queue, uint64_t id, const char *reason, unsigned int flags,
                 int64_t *OUT_I64) {
  int was = 0;
  int rc = echomq_cancel(c, queue, id, reason, flags, &was);
  *OUT_I64 = was;
  return rc;
}
/* The queue's lifecycle settings into nums (EMQGO_LIFE_NUMS entries). */
int emqgo_get_lifecycle(echomq_client *c, const char *queue, int64_t *nums, size_t n) {
  echomq_lifecycle_settings s;
  int64_t v[EMQGO_LIFE_NUMS];
  size_t i;
  memset(&s, 0, sizeof s);
  s.version = ECHOMQ_LIFECYCLE_SETTINGS_VERSION;
  int rc = echomq_get_lifecycle(c, queue, &s);
  if (rc != ECHOMQ_OK) return rc;
  v[EMQGO_LIFE_DEFAULT_TIMEOUT_MS] = s.default_timeout_ms;
  v[EMQGO_LIFE_QUEUE_LIMIT] = (int64_t)s.queue_limit;
  v[EMQGO_LIFE_RATE_JOBS] = (int64_t)s.rate_jobs;
  v[EMQGO_LIFE_RATE_PERIOD_MS] = s.rate_period_ms;
  v[EMQGO_LIFE_RATE_BURST] = (int64_t)s.rate_burst;
  v[EMQGO_LIFE_LEASED] = (int64_t)s.leased;
  v[EMQGO_LIFE_TOKENS_MILLI] = s.tokens < 0 ? -1 : (int64_t)(s.tokens * 1000.0);
  v[EMQGO_LIFE_NEXT_TOKEN_AT_MS] = s.next_token_at_ms;
  for (i = 0; i < n && i < EMQGO_LIFE_NUMS; i++) nums[i] = v[i];
  return rc;
}
int emqgo_worker_next_halt(echomq_worker *w, int64_t timeout_ms, int64_t *nums, size_t n) {
  uint64_t id = 0, token = 0;
  int why = 0;
  if (n != 3) return ECHOMQ_EINVAL;
  int rc = echomq_worker_next_halt(w, timeout_ms, &id, &token, &why);
  nums[0] = (int64_t)id;
  nums[1] = (int64_t)token;
  nums[2] = why;
  return rc;
}

int emqgo_worker_next(echomq_worker *w, int64_t timeout_ms, uint64_t *OUT_HANDLE) {
  echomq_job *j = NULL;
  int rc = echomq_worker_next(w, timeout_ms, &j);
  *OUT_HANDLE = (uint64_t)(uintptr_t)j;
  return rc;
}

/* Counters of a worker engine, in this order (EMQGO_WSTATS_* indexes). */
enum {
  EMQGO_WSTATS_CLAIMED = 0,
  EMQGO_WSTATS_DONE,
  EMQGO_WSTATS_FAILED,
  EMQGO_WSTATS_RELEASED,
  EMQGO_WSTATS_EXTENDED,
  EMQGO_WSTATS_LOST,
  EMQGO_WSTATS_ROUND_TRIPS,
  EMQGO_WSTATS_ERRORS,
  EMQGO_WSTATS_RUNNING,
  EMQGO_WSTATS_BUFFERED,
  EMQGO_WSTATS_RETRIED,
  EMQGO_WSTATS_DELAYED,
  EMQGO_WSTATS_DEAD,
  EMQGO_WSTATS_UNCONFIRMED,
  EMQGO_WSTATS_CANCELED,
  EMQGO_WSTATS_TIMED_OUT,
  EMQGO_WSTATS_NUMS
};

int emqgo_worker_stats(echomq_worker *w, int64_t *nums, size_t n) {
  echomq_worker_stats s;
  int64_t v[EMQGO_WSTATS_NUMS];
  size_t i;
  int rc;
  memset(&s, 0, sizeof s);
  s.version = ECHOMQ_WORKER_STATS_VERSION;
  rc = echomq_worker_stats_get(w, &s);
  if (rc != ECHOMQ_OK) return rc;
  v[EMQGO_WSTATS_CLAIMED] = (int64_t)s.claimed;
  v[EMQGO_WSTATS_DONE] = (int64_t)s.done;
  v[EMQGO_WSTATS_FAILED] = (int64_t)s.failed;
  v[EMQGO_WSTATS_RELEASED] = (int64_t)s.released;
  v[EMQGO_WSTATS_EXTENDED] = (int64_t)s.extended;
  v[EMQGO_WSTATS_LOST] = (int64_t)s.lost;
  v[EMQGO_WSTATS_ROUND_TRIPS] = (int64_t)s.round_trips;
  v[EMQGO_WSTATS_ERRORS] = (int64_t)s.errors;
  v[EMQGO_WSTATS_RUNNING] = (int64_t)s.running;
  v[EMQGO_WSTATS_BUFFERED] = (int64_t)s.buffered;
  v[EMQGO_WSTATS_RETRIED] = (int64_t)s.retried;
  v[EMQGO_WSTATS_DELAYED] = (int64_t)s.delayed;
  v[EMQGO_WSTATS_DEAD] = (int64_t)s.dead;
  v[EMQGO_WSTATS_UNCONFIRMED] = (int64_t)s.unconfirmed;
  v[EMQGO_WSTATS_CANCELED] = (int64_t)s.canceled;
  v[EMQGO_WSTATS_TIMED_OUT] = (int64_t)s.timed_out;
  for (i = 0; i < n && i < EMQGO_WSTATS_NUMS; i++) nums[i] = v[i];
  return rc;
}

/* Bytes of C heap in use (glibc mallinfo2), for the leak tests. */
uint64_t emqgo_c_heap_in_use(void) {
  struct mallinfo2 m = mallinfo2();
  return (uint64_t)(m.uordblks + m.hblkhd);
}

/* ---- schedules (echomq/schedules.h) ------------------------------------ */

/* The numbers of an upsert, in this order (EMQGO_SPEC_* indexes). */
enum {
  EMQGO_SPEC_EVERY_MS = 0,
  EMQGO_SPEC_MAX_ATTEMPTS,
  EMQGO_SPEC_KEEP_MS,
  EMQGO_SPEC_KEEP_LAST,
  EMQGO_SPEC_COST_ESTIMATE,
  EMQGO_SPEC_START_AT_MS,
  EMQGO_SPEC_END_AT_MS,
  EMQGO_SPEC_LIMIT,
  EMQGO_SPEC_MISSED,
  EMQGO_SPEC_GRACE_MS,
  EMQGO_SPEC_OVERLAP,
  EMQGO_SPEC_NUMS
};

/* Upsert schedule `name` with the numbers of its spec (EMQGO_SPEC_*; cron
 * and zone "" = none); statuses[0] gets what changed, statuses[1] its
 * next tick. */
int emqgo_schedule_upsert(echomq_client *c, const char *queue, const char *name, const char *cron,
                          const char *zone, const char *lane, const char *payload, size_t payload_len,
                          int64_t *nums, size_t n, int64_t *statuses, size_t sn) {
  echomq_schedule_options o = ECHOMQ_SCHEDULE_OPTIONS_INIT;
  int changed = 0, rc;
  int64_t next = 0;
  if (n < EMQGO_SPEC_NUMS || sn < 2) return ECHOMQ_EINVAL;
  o.every_ms = nums[EMQGO_SPEC_EVERY_MS];
  o.cron = cron && *cron ? cron : NULL;
  o.zone = zone && *zone ? zone : NULL;
  o.lane = lane;
  o.payload = payload;
  o.payload_len = payload_len;
  o.max_attempts = (uint32_t)nums[EMQGO_SPEC_MAX_ATTEMPTS];
  o.keep_ms = nums[EMQGO_SPEC_KEEP_MS];
  o.keep_last = (uint64_t)nums[EMQGO_SPEC_KEEP_LAST];
  o.cost_estimate = (uint64_t)nums[EMQGO_SPEC_COST_ESTIMATE];
  o.start_at_ms = nums[EMQGO_SPEC_START_AT_MS];
  o.end_at_ms = nums[EMQGO_SPEC_END_AT_MS];
  o.limit = (uint64_t)nums[EMQGO_SPEC_LIMIT];
  o.missed = (int)nums[EMQGO_SPEC_MISSED];
  o.grace_ms = nums[EMQGO_SPEC_GRACE_MS];
  o.overlap = (int)nums[EMQGO_SPEC_OVERLAP];
  rc = echomq_schedule_upsert(c, queue, name, &o, &changed, &next);
  statuses[0] = changed;
  statuses[1] = next;
  return rc;
}

int echomq_schedule_remove(echomq_client *c, const char *queue, const char *name);
int echomq_schedule_pause(echomq_client *c, const char *queue, const char *name);
int echomq_schedule_resume(echomq_client *c, const char *queue, const char *name);
size_t echomq_schedule_list_count(const echomq_schedule_list *l);
const char *echomq_schedule_list_next(const echomq_schedule_list *l);
void echomq_schedule_list_free(echomq_schedule_list *l);

/* A page of schedules (after "" = from the first), or one by name
 * (`name` not ""): the list's address in *OUT_HANDLE. */
int emqgo_schedules(echomq_client *c, const char *queue, const char *name, const char *after, size_t count,
                    uint64_t *OUT_HANDLE) {
  echomq_schedule_list *l = NULL;
  int rc = name && *name ? echomq_schedule_get(c, queue, name, &l) : echomq_schedules(c, queue, after, count, &l);
  *OUT_HANDLE = (uint64_t)(uintptr_t)l;
  return rc;
}

/* The numbers of a schedule as read, in this order (EMQGO_SCHED_* indexes). */
enum {
  EMQGO_SCHED_EVERY_MS = 0,
  EMQGO_SCHED_PAYLOAD_LEN,
  EMQGO_SCHED_MAX_ATTEMPTS,
  EMQGO_SCHED_KEEP_MS,
  EMQGO_SCHED_KEEP_LAST,
  EMQGO_SCHED_COST_ESTIMATE,
  EMQGO_SCHED_START_AT_MS,
  EMQGO_SCHED_END_AT_MS,
  EMQGO_SCHED_LIMIT,
  EMQGO_SCHED_MISSED,
  EMQGO_SCHED_GRACE_MS,
  EMQGO_SCHED_OVERLAP,
  EMQGO_SCHED_PAUSED,
  EMQGO_SCHED_NEXT_AT_MS,
  EMQGO_SCHED_LAST_TICK_MS,
  EMQGO_SCHED_FIRED_TICK_MS,
  EMQGO_SCHED_FIRED_AT_MS,
  EMQGO_SCHED_FIRED_JOB,
  EMQGO_SCHED_FIRED_STATE,
  EMQGO_SCHED_RUNS,
  EMQGO_SCHED_SKIPS,
  EMQGO_SCHED_CREATED_AT_MS,
  EMQGO_SCHED_UPDATED_AT_MS,
  EMQGO_SCHED_NUMS
};

void emqgo_schedule_numbers(const echomq_schedule_list *l, size_t i, int64_t *nums, size_t n) {
  const echomq_schedule_info *s = echomq_schedule_list_at(l, i);
  int64_t v[EMQGO_SCHED_NUMS];
  size_t k;
  if (s == NULL) return;
  v[EMQGO_SCHED_EVERY_MS] = s->every_ms;
  v[EMQGO_SCHED_PAYLOAD_LEN] = (int64_t)s->payload_len;
  v[EMQGO_SCHED_MAX_ATTEMPTS] = s->max_attempts;
  v[EMQGO_SCHED_KEEP_MS] = s->keep_ms;
  v[EMQGO_SCHED_KEEP_LAST] = (int64_t)s->keep_last;
  v[EMQGO_SCHED_COST_ESTIMATE] = (int64_t)s->cost_estimate;
  v[EMQGO_SCHED_START_AT_MS] = s->start_at_ms;
  v[EMQGO_SCHED_END_AT_MS] = s->end_at_ms;
  v[EMQGO_SCHED_LIMIT] = (int64_t)s->limit;
  v[EMQGO_SCHED_MISSED] = s->missed;
  v[EMQGO_SCHED_GRACE_MS] = s->grace_ms;
  v[EMQGO_SCHED_OVERLAP] = s->overlap;
  v[EMQGO_SCHED_PAUSED] = s->paused;
  v[EMQGO_SCHED_NEXT_AT_MS] = s->next_at_ms;
  v[EMQGO_SCHED_LAST_TICK_MS] = s->last_tick_ms;
  v[EMQGO_SCHED_FIRED_TICK_MS] = s->fired_tick_ms;
  v[EMQGO_SCHED_FIRED_AT_MS] = s->fired_at_ms;
  v[EMQGO_SCHED_FIRED_JOB] = (int64_t)s->fired_job;
  v[EMQGO_SCHED_FIRED_STATE] = s->fired_state;
  v[EMQGO_SCHED_RUNS] = (int64_t)s->runs;
  v[EMQGO_SCHED_SKIPS] = (int64_t)s->skips;
  v[EMQGO_SCHED_CREATED_AT_MS] = s->created_at_ms;
  v[EMQGO_SCHED_UPDATED_AT_MS] = s->updated_at_ms;
  for (k = 0; k < n && k < EMQGO_SCHED_NUMS; k++) nums[k] = v[k];
}

/* Text of schedule i: what = 0 name, 1 cron, 2 zone, 3 lane, 4 ended. */
const char *emqgo_schedule_text(const echomq_schedule_list *l, size_t i, int what) {
  const echomq_schedule_info *s = echomq_schedule_list_at(l, i);
  if (s == NULL) return "";
  switch (what) {
    case 0: return s->name;
    case 1: return s->cron;
    case 2: return s->zone;
    case 3: return s->lane;
    default: return s->ended;
  }
}

void emqgo_schedule_payload_copy(const echomq_schedule_list *l, size_t i, char *buf, size_t cap) {
  const echomq_schedule_info *s = echomq_schedule_list_at(l, i);
  if (s != NULL && s->payload_len > 0) memcpy(buf, s->payload, s->payload_len < cap ? s->payload_len : cap);
}

/* The next ticks of schedule `name` into nums (room for n); *OUT_U64 gets how many. */
int emqgo_schedule_next(echomq_client *c, const char *queue, const char *name, int64_t *nums, size_t n,
                        uint64_t *OUT_U64) {
  size_t got = 0;
  int rc = echomq_schedule_next(c, queue, name, n, nums, &got);
  *OUT_U64 = got;
  return rc;
}

/* The schedule and tick of a looked-up job ("" and 0 for none). */
const char *emqgo_job_schedule(const echomq_job *j) { return echomq_job_schedule(j, NULL); }
int64_t emqgo_job_tick_ms(const echomq_job *j) { return echomq_job_tick_ms(j); }
%}
%include "flows.i"
