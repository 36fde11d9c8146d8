/*
 * echomq/outcomes.h — outcomes: retention, results, progress, waiting for a job, events.
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h.
 */
#ifndef ECHOMQ_OUTCOMES_H
#define ECHOMQ_OUTCOMES_H

#include "common.h"
#include "job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Outcomes (0.4.0): what became of finished jobs, all opt-in
 * (docs/operations.md "Outcomes", docs/keys.md for the keys and the event
 * format). With none of it on, a queue pays nothing for it. Every call takes
 * a connected client handle (echomq/client.h), one thread at a time (a
 * waiting call may be interrupted by echomq_client_cancel from another),
 * and records its status and message on it.
 *
 * Retention. A completed job is normally gone at its ack. With a retention,
 * its outcome is kept: state ECHOMQ_JOB_COMPLETED, lane, attempts, token,
 * enqueue time, first-started and finished times, last progress, and the
 * result it was acked with (not its payload). keep_ms (1..ECHOMQ_KEEP_MAX_MS,
 * 0 = no time bound) keeps it that long after it completed; keep_last
 * (1..ECHOMQ_KEEP_LAST_MAX, 0 = no count bound) keeps it while it is among
 * the last keep_last jobs that completed with a retention. At least one of
 * them; both bound it when both are set. It applies to jobs that complete
 * from then on. Expired outcomes are trimmed by the settling calls, a
 * bounded number per call (no daemon); a lookup never shows one. Dead jobs
 * stay in the dead list as before, now with their times and progress.
 * Errors (all four): EINVAL (names, values: nothing sent), ECONN, ETIMEOUT,
 * EOOM, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_set_retention(echomq_client *c, const char *queue, int64_t keep_ms,
                                    uint64_t keep_last);
ECHOMQ_API int echomq_clear_retention(echomq_client *c, const char *queue);

/* Events. With events on, the scripts append entries to the Valkey Stream
 * "emq:{<queue>}:events", kept near max_len (1..ECHOMQ_EVENTS_MAXLEN_MAX)
 * entries by XADD MAXLEN ~: claimed, completed, failed, dead, redriven,
 * deleted, purged, progress, setting, and with ECHOMQ_EVENTS_ENQUEUED also
 * enqueued (one entry per job: the costly one). Any client reads them with
 * XREAD / XREADGROUP; the format is public (docs/keys.md "Events").
 * flags: 0 or ECHOMQ_EVENTS_ENQUEUED. Errors: as echomq_set_retention. */
#define ECHOMQ_EVENTS_ENQUEUED 1
ECHOMQ_API int echomq_set_events(echomq_client *c, const char *queue, uint64_t max_len, int flags);
ECHOMQ_API int echomq_clear_events(echomq_client *c, const char *queue);

/* The retention and event settings as they are (0.5.0): what
 * echomq_set_retention and echomq_set_events set, 0 for one that is off
 * (keep_ms 0 and keep_last 0: no retention; events_max_len 0: no event
 * stream). A sharded queue answers with its first shard's (every shard is
 * set alike). Set out->version to ECHOMQ_OUTCOME_SETTINGS_VERSION first.
 * Errors: EINVAL (names, version), ELAYOUT, ECONN, ETIMEOUT, ESERVER,
 * ENOPERM. */
typedef struct echomq_outcome_settings {
  unsigned int version;
  int64_t keep_ms;          /* keep completed jobs this long; 0 = no time bound */
  uint64_t keep_last;       /* keep the last N; 0 = no count bound */
  uint64_t events_max_len;  /* the event stream's length; 0 = events off */
  int events_flags;         /* ECHOMQ_EVENTS_ENQUEUED when enqueues are events */
} echomq_outcome_settings;

#define ECHOMQ_OUTCOME_SETTINGS_VERSION 1
ECHOMQ_API int echomq_get_outcomes(echomq_client *c, const char *queue, echomq_outcome_settings *out);

/* Progress: a held job reports a value (0..ECHOMQ_PROGRESS_MAX bytes,
 * binary), fenced by its token like echomq_extend. It replaces the previous
 * one, shows in echomq_get_job (and in a retained outcome) and is a
 * `progress` event. Errors: EINVAL, ETOOLARGE (nothing sent), ESTALE,
 * ENOTFOUND, ECONN, ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_progress(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                               const char *value, size_t value_len);

/* Wait for job `id` to complete or die. Returns ECHOMQ_OK with *out set
 * (as echomq_get_job: ECHOMQ_JOB_COMPLETED or ECHOMQ_JOB_DEAD) at once when
 * it has, or as soon as it does; ECHOMQ_PENDING (4, not an error) with *out
 * NULL when it had not after timeout_ms (0..ECHOMQ_WAIT_MAX_MS; 0 = do not
 * wait). *out is the caller's (echomq_job_free).
 * It blocks on the server with no polling: the waiter is counted on the
 * job, and its ack or death pushes a wake-up onto the job's own list, which
 * expires after ECHOMQ_WAIT_GRACE_MS; the outcome of a job someone waits
 * for is kept at least that long, so waiting works without a retention, but
 * only for a waiter that began before the job finished: once a job that
 * was not retained has finished, a wait gets ENOTFOUND, as a lookup does.
 * echomq_client_cancel() interrupts the wait (ECANCELED). A job deleted
 * while waited for: ENOTFOUND. Errors: EINVAL (id 0, NULL out), ENOTFOUND,
 * ECANCELED, ECONN, ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_wait_job(echomq_client *c, const char *queue, uint64_t id, int64_t timeout_ms,
                               echomq_job **out);

/* Read the event stream: up to `count` (1..ECHOMQ_BATCH_MAX) entries after
 * stream id `after` ("0" = from the oldest kept, "$" = only new ones),
 * waiting up to block_ms (0..ECHOMQ_WAIT_MAX_MS; 0 = do not wait) for one to
 * come; cancellable like echomq_wait_job. ECHOMQ_OK with *out (may hold 0
 * entries when none came): the caller's, freed with echomq_event_list_free.
 * For a group of consumers use XREADGROUP on the stream directly.
 * Errors: EINVAL, ECANCELED, ECONN, ETIMEOUT, ESERVER, ENOPERM, ESHARDS (a
 * sharded queue: read each shard queue's stream). */
ECHOMQ_API int echomq_events_read(echomq_client *c, const char *queue, const char *after,
                                  size_t count, int64_t block_ms, echomq_event_list **out);
ECHOMQ_API size_t echomq_event_list_count(const echomq_event_list *l);
/* Entry i's stream id ("<ms>-<seq>"; pass the last one as `after`). */
ECHOMQ_API const char *echomq_event_list_id(const echomq_event_list *l, size_t i);
/* Entry i's fields: how many, and field k's name and value (*len may be
 * NULL). NULL when out of range. Owned by the list. */
ECHOMQ_API size_t echomq_event_list_nfields(const echomq_event_list *l, size_t i);
ECHOMQ_API const char *echomq_event_list_name(const echomq_event_list *l, size_t i, size_t k);
ECHOMQ_API const char *echomq_event_list_value(const echomq_event_list *l, size_t i, size_t k,
                                               size_t *len);
ECHOMQ_API void echomq_event_list_free(echomq_event_list *l);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_OUTCOMES_H */
