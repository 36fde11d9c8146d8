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

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_LIFECYCLE_H */
