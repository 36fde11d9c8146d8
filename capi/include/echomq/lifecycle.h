/*
 * echomq/lifecycle.h — a job's life past claim and settle: cancel a job
 * wherever it waits (also while it runs), time limits, start deadlines, a
 * queue-wide ceiling and rate, and lane limits that burst (0.5.0).
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h. The design and
 * its bounds: docs/architecture.md, "Lifecycle"; the controls and how they
 * compose: docs/operations.md, "Fairness controls".
 */
#ifndef ECHOMQ_LIFECYCLE_H
#define ECHOMQ_LIFECYCLE_H

#include "common.h"
#include "job.h"
#include "worker.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every call here that takes a client handle (echomq/client.h) uses it from
 * one thread at a time and records its status and message on it. */

/* Bounds of this topic (checked before any I/O; the scripts get the same
 * numbers). */
#define ECHOMQ_TIMEOUT_MAX_MS (366LL * 24 * 3600 * 1000) /* a job's time limit */
#define ECHOMQ_TTL_MAX_MS (732LL * 24 * 3600 * 1000)     /* a start deadline ahead of now */

/* ---- Cancel ---- */

/* echomq_cancel flags. */
#define ECHOMQ_CANCEL_REMOVE 1 /* a waiting job is removed whole (counted as
                                  deleted) instead of dead-lettered; a leased
                                  one settles as canceled either way */

/* Cancel job `id` of `queue`: it never runs again (DESIGN.md, "Once").
 * reason: NULL or "" = none, else cut at ECHOMQ_REASON_MAX bytes; the job's
 * last error becomes "canceled" or "canceled: <reason>". *was (may be NULL)
 * receives the echomq_job_state the job had:
 *   ECHOMQ_JOB_PENDING, ECHOMQ_JOB_DELAYED: canceled now, dead-lettered
 *     (or removed with ECHOMQ_CANCEL_REMOVE);
 *   ECHOMQ_JOB_LEASED: a worker holds it. It is marked, and settles as
 *     canceled (dead-lettered, never retried) at its holder's next
 *     settlement, whatever that reports (the settlement returns
 *     ECHOMQ_WAS_CANCELED), or when its lease runs out. The holder learns at
 *     its next lease extension (ECHOMQ_WAS_CANCELED); a worker engine learns
 *     at once (the queue's cancel notices) and tells the handler
 *     (echomq_job_halted). Cancelling it again changes nothing;
 *   ECHOMQ_JOB_DEAD: it was canceled before; nothing changed;
 *   ECHOMQ_JOB_WAITING (since 0.5.0): a flow's parent waiting for its
 *     children (echomq/flows.h). It and every job below it that has not
 *     finished (through parents that still wait) are canceled in this one
 *     call: the waiting, delayed and
 *     pending ones now (dead-lettered, or removed with
 *     ECHOMQ_CANCEL_REMOVE), the leased ones marked as above; finished ones
 *     stay as they are. At most ECHOMQ_FLOW_MAX jobs (one flow).
 * A job of a flow canceled (whatever it was) is, to its own parent, a
 * death with reason "canceled" (or "canceled: <reason>"): the link's
 * policy applies (ECHOMQ_FLOW_FAIL: the parent dies, its last error
 * naming the child; FLOW_IGNORE: left out; FLOW_CONTINUE: the parent runs
 * with the death among its children's outcomes), also when it is removed.
 * Stats count it (echomq_queue_stats.canceled) and, with events on, the
 * stream gets a `canceled` entry, then `dead` (or `deleted`).
 * Errors: EINVAL (name, id 0 or above ECHOMQ_ID_MAX, unknown flags),
 * ENOTFOUND (never enqueued), EFINISHED (completed, dead for another
 * reason, or acked and gone: nothing to cancel), ECONN, ETIMEOUT (unknown
 * outcome; cancelling again is safe), ESERVER (a key of the wrong type:
 * nothing changed, also for a flow), ENOPERM, ELAYOUT. A refused call
 * changes nothing. (Before this release a waiting parent was refused with
 * EDEPENDS; the call no longer returns it.) For a sharded queue the id is the sharded queue's. */
ECHOMQ_API int echomq_cancel(echomq_client *c, const char *queue, uint64_t id, const char *reason,
                             unsigned int flags, int *was);

/* ---- Time limits and start deadlines ----
 * A job's own are enqueue options (echomq_enqueue_options version 5:
 * timeout_ms, expires_at_ms, ttl_ms, expire_flags, echomq/queue.h). */

/* The queue's default time limit of an attempt, for jobs enqueued without
 * their own: 1..ECHOMQ_TIMEOUT_MAX_MS, 0 clears. It applies to every
 * attempt claimed from then on. For a sharded queue: every shard queue.
 * Errors: EINVAL, ECONN, ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_set_default_timeout(echomq_client *c, const char *queue, int64_t timeout_ms);

/* ---- The queue-wide ceiling and rate ----
 * They gate every claim of the queue whatever its lanes: a claim takes at
 * most the room left (limit - jobs leased now, and the rate's whole
 * tokens), the ring's rotation still choosing whose jobs; at the ceiling or
 * out of tokens a claim takes none, in O(1), without touching the ring.
 * Lane and tenant limits and rates hold within it: a job is leased only
 * when every one of them allows it. A blocked claimer or idle worker
 * engine wakes when a settlement frees a slot (or, for the rate, when the
 * next token is due). For a sharded queue each setting is split between
 * the shard queues (shard i gets n / S, one more while i < n mod S), so
 * that their sum is the queue's: each shard needs at least 1 (EINVAL). */

/* Jobs leased at once across all lanes: 1..ECHOMQ_LIMIT_MAX, 0 clears.
 * Jobs leased already keep their leases. Errors: EINVAL, ECONN, ETIMEOUT,
 * ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_set_queue_limit(echomq_client *c, const char *queue, uint32_t limit);
/* Jobs claimed per period_ms across all lanes (a token bucket on server
 * time, as a lane's rate: echomq_set_rate), with a burst (0 = jobs); jobs
 * 1..ECHOMQ_RATE_JOBS_MAX, 0 clears; period 1..ECHOMQ_RATE_PERIOD_MAX_MS.
 * Errors: as echomq_set_queue_limit. */
ECHOMQ_API int echomq_set_queue_rate(echomq_client *c, const char *queue, uint32_t jobs, int64_t period_ms,
                                     uint32_t burst);

/* A queue's lifecycle settings and where it stands (0 = none). */
typedef struct echomq_lifecycle_settings {
  unsigned int version;        /* ECHOMQ_LIFECYCLE_SETTINGS_VERSION */
  int64_t default_timeout_ms;  /* echomq_set_default_timeout */
  uint32_t queue_limit;        /* echomq_set_queue_limit */
  uint32_t rate_jobs;          /* echomq_set_queue_rate */
  int64_t rate_period_ms;
  uint32_t rate_burst;
  uint64_t leased;             /* jobs leased now: what the ceiling counts */
  double tokens;               /* the rate's tokens now; -1 without a rate */
  int64_t next_token_at_ms;    /* server ms the next token is due (0: one now) */
} echomq_lifecycle_settings;
#define ECHOMQ_LIFECYCLE_SETTINGS_VERSION 1
/* Fills *out up to the fields of out->version (set it first). A sharded
 * queue's: the shards' summed (the default time limit: the first shard's).
 * Errors: EINVAL (NULL, unknown version), ECONN, ETIMEOUT, ESERVER,
 * ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_get_lifecycle(echomq_client *c, const char *queue, echomq_lifecycle_settings *out);

/* ---- Lane limits that burst ----
 * A lane's (or a tenant's) limit may carry a burst ceiling: below its limit
 * the lane is in the ring as ever; at or above it, below its burst, it is
 * served only when no lane below its own limit is serviceable (a second
 * ring, consulted only when the first has nothing: O(1) a claim). So the
 * capacity no one else wants goes to the lanes with work, and a lane below
 * its limit is never passed over for a bursting one (docs/architecture.md,
 * "Lifecycle"). A lane of a tenant
 * cannot burst; its tenant (group "T/") can. */

/* Sets `group`'s own limit (1..ECHOMQ_LIMIT_MAX) and its burst ceiling
 * (limit..ECHOMQ_LIMIT_MAX; 0 = no burst) together; echomq_set_limit with
 * 0 clears both, and refuses a limit above the lane's burst. The lane info
 * shows them (echomq_lane_info.burst, .bursting). Errors: EINVAL (names, a
 * burst below the limit, a lane of a tenant), ECONN, ETIMEOUT, ESERVER,
 * ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_set_limit_burst(echomq_client *c, const char *queue, const char *group, uint32_t limit,
                                      uint32_t burst);

/* ---- Telling a running handler to stop (the worker engine) ----
 * A job an engine handed out (echomq_worker_next) is halted when it is
 * canceled (the engine reads the queue's cancel notices while it runs jobs,
 * on a connection of its own, and learns at the latest at its next lease
 * extension) or when its time limit runs out (the engine's own clock, from
 * the claim). The engine stops extending a halted job's lease, sets the
 * job's flag (echomq_job_halted) and queues a notice for
 * echomq_worker_next_halt. Nothing can stop a handler from outside: it
 * stops by reading the flag, or by waiting for the notice on a thread of
 * its own (as the Python and Go workers do). What its report then does:
 *   canceled: the job settles as canceled whatever is reported (the report
 *     returns ECHOMQ_WAS_CANCELED with report_outcomes, else ECHOMQ_OK);
 *   timed out: the attempt fails with reason "timed out", retried by the
 *     engine's retry_delay_ms (or dead-lettered on its last attempt),
 *     whatever is reported; a result is dropped.
 * A handler that never reports is not waited for: its job's lease runs out
 * and the claim that brings the job back settles it (canceled) or fails
 * the attempt ("timed out") and retries it by the usual policy. */

/* Why a handler is told to stop (echomq_job_halted, the notices). */
#define ECHOMQ_HALT_CANCELED 1  /* the job was canceled */
#define ECHOMQ_HALT_TIMED_OUT 2 /* the attempt ran out of its time limit */

/* 0 while the job may run on; else ECHOMQ_HALT_CANCELED or
 * ECHOMQ_HALT_TIMED_OUT. Set by the engine's threads while the handler
 * runs: read it as often as is cheap (it is one atomic load). 0 for NULL
 * and for a job that no engine handed out. */
ECHOMQ_API int echomq_job_halted(const echomq_job *j);

/* Wait up to timeout_ms (0..ECHOMQ_WAIT_MAX_MS) for the next running job
 * to be halted: ECHOMQ_OK with its *id, *token (the delivery's) and *why
 * (ECHOMQ_HALT_*), ECHOMQ_EMPTY at the timeout, ECHOMQ_ECANCELED once the
 * engine has stopped (all its threads done). Notices of a job reported
 * before they were read are dropped. Meant for one thread of a binding that
 * wakes its handlers; any thread may call it. Errors: EINVAL (NULL w or
 * outputs, not started, a timeout out of range). */
ECHOMQ_API int echomq_worker_next_halt(echomq_worker *w, int64_t timeout_ms, uint64_t *id, uint64_t *token,
                                       int *why);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_LIFECYCLE_H */
