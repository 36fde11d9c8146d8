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
 *   ECHOMQ_JOB_DEAD: it was canceled before; nothing changed.
 * Stats count it (echomq_queue_stats.canceled) and, with events on, the
 * stream gets a `canceled` entry, then `dead` (or `deleted`).
 * Errors: EINVAL (name, id 0 or above ECHOMQ_ID_MAX, unknown flags),
 * ENOTFOUND (never enqueued), EFINISHED (completed, dead for another
 * reason, or acked and gone: nothing to cancel), ECONN, ETIMEOUT (unknown
 * outcome; cancelling again is safe), ESERVER, ENOPERM, ELAYOUT. A refused
 * call changes nothing. For a sharded queue the id is the sharded queue's. */
ECHOMQ_API int echomq_cancel(echomq_client *c, const char *queue, uint64_t id, const char *reason,
                             unsigned int flags, int *was);

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
