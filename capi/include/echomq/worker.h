/*
 * echomq/worker.h — the worker engine: the one worker loop under every binding.
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h.
 */
#ifndef ECHOMQ_WORKER_H
#define ECHOMQ_WORKER_H

#include "common.h"
#include "job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The worker engine: the one worker loop under every binding. Any number of
 * host threads pull jobs (echomq_worker_next) and report what became of
 * them (done / fail / discard). Inside, a pump claims in batches fused
 * with the settlement of finished jobs (one round trip per batch), extends
 * the leases of held jobs past half their length (many in one call), and
 * when the queue is empty sleeps on the server (another connection waits
 * for a wake-up, no polling) until work arrives. When prefetch is 32 or
 * more, a second pump on its own connection sends the next claim while a
 * call is in flight (docs/architecture.md); never more than `slots` jobs
 * are held. An engine uses two connections, three with the second pump.
 * The engine also keeps the policy a binding would otherwise write again:
 * the retry delay of a failed job, stopping after an idle time, and what
 * became of each reported job (report_outcomes).
 *
 * Thread safety: every echomq_worker_* call is thread-safe, except
 * echomq_worker_free, which must be the last call on the handle.
 * Job handles from echomq_worker_next belong to the caller (echomq_job_free);
 * report each exactly once, then free it. */

typedef struct echomq_worker_options {
  unsigned int version;      /* ECHOMQ_WORKER_OPTIONS_VERSION */
  unsigned int slots;        /* jobs held at once, running or prefetched;
                                default 8 (ECHOMQ_WORKER_HANDLERS_DEFAULT
                                running and as many prefetched);
                                1..ECHOMQ_BATCH_MAX */
  unsigned int prefetch;     /* jobs claimed per round trip at most;
                                0 = slots (default); 1..slots */
  int64_t lease_ms;          /* default 30000; extended while a job runs;
                                1..ECHOMQ_LEASE_MAX_MS */
  int weighted;              /* 1 = weighted turns (wclaim); default 0.
                                A batch then ends at a turn boundary: a
                                lane's turn is not split between two round
                                trips unless its K exceeds the batch */
  int64_t retry_delay_ms;    /* for echomq_worker_fail with
                                ECHOMQ_RETRY_DEFAULT: default
                                ECHOMQ_RETRY_BACKOFF (exponential); also
                                ECHOMQ_RETRY_DEAD or 0..ECHOMQ_DELAY_MAX_MS */
  int64_t idle_wait_ms;      /* longest server-side wait of an idle round;
                                default 5000; 1..ECHOMQ_WAIT_MAX_MS */
  int connect_timeout_ms;    /* as echomq_client_options; default 2000 */
  int command_timeout_ms;    /* default 5000 */
  /* Since version 2 (0.3.0): as echomq_client_options. Every claim and
   * settlement round trip and every lease extension then waits for the
   * confirmation; one that is not confirmed in time counts as done (its
   * jobs are handed out, its settlements are settled) and is counted in
   * echomq_worker_stats.unconfirmed. */
  int wait_replicas;         /* default 0 */
  int wait_aof;              /* default 0 */
  int wait_timeout_ms;       /* default 1000 */
  /* Since version 3 (0.4.0): latency-bounded prefetch. The engine measures
   * how long a handler takes and how many host threads pull jobs, and sizes
   * each claim so that the jobs it holds unstarted are about this much
   * handler work (Little's law: target × handlers / handler time), within
   * slots and prefetch. A quiet lane's job then starts within about one
   * target wait, not behind a full buffer of claimed jobs; fast handlers
   * still get deep batches (docs/architecture.md). Weighted engines keep
   * the fixed prefetch: a turn is kept whole only by a full batch. Default 5;
   * 0 = fixed prefetch (every claim fills the free slots up to prefetch, as
   * before version 3, and what a caller of version 1 or 2 gets);
   * 0..ECHOMQ_TARGET_WAIT_MAX_MS. */
  int target_wait_ms;
  /* Since version 4 (0.5.0): policy every binding used to keep for itself.
   * A caller of versions 1..3 gets the defaults (0 for both). */
  int report_outcomes;       /* 1 = the report calls (echomq_worker_done,
                                _fail, _discard, _done_result, _done_with,
                                _fail_with) return what becomes of the job:
                                ECHOMQ_OK, ECHOMQ_WILL_RETRY, ECHOMQ_WILL_DIE
                                or ECHOMQ_ESTALE (see "Report outcomes"
                                below). 0 (default) = ECHOMQ_OK for every
                                report taken and ECHOMQ_ENOTFOUND for a lost
                                lease, as before version 4 */
  int64_t idle_timeout_ms;   /* stop by itself once it has held no job
                                (none running, none prefetched, no call in
                                flight, nothing left to settle) for this
                                long, counted from echomq_worker_start or the
                                last job handed out or reported: it stops as
                                ECHOMQ_STOP_DRAIN would (nothing is running),
                                and echomq_worker_next returns
                                ECHOMQ_ECANCELED from then on. 0 = never
                                (default); 0..ECHOMQ_WAIT_MAX_MS */
} echomq_worker_options;

#define ECHOMQ_WORKER_OPTIONS_VERSION 4
/* A caller built against version 1 (no wait_* fields) passes 1. */
#define ECHOMQ_WORKER_OPTIONS_VERSION_1 1
/* A caller built against version 2 (no target_wait_ms) passes 2. */
#define ECHOMQ_WORKER_OPTIONS_VERSION_2 2
/* A caller built against version 3 (no report_outcomes, idle_timeout_ms)
 * passes 3. */
#define ECHOMQ_WORKER_OPTIONS_VERSION_3 3
#define ECHOMQ_WORKER_OPTIONS_INIT \
  { ECHOMQ_WORKER_OPTIONS_VERSION, 8, 0, 30000, 0, ECHOMQ_RETRY_BACKOFF, 5000, 2000, 5000, 0, 0, 1000, 5, 0, 0 }
/* Defaults of a binding's worker that the engine does not use itself, kept
 * here so that every binding reads the same numbers: the host threads that
 * run handlers (the default slots hold this many running and as many
 * prefetched), and how long a graceful stop waits for running handlers
 * (the timeout_ms of echomq_worker_stop with ECHOMQ_STOP_DRAIN). */
#define ECHOMQ_WORKER_HANDLERS_DEFAULT 4
#define ECHOMQ_WORKER_DRAIN_MS_DEFAULT 30000

/* Fill *opts with the defaults of `version` (1..3: that version's fields
 * only). Errors: EINVAL (NULL or unknown version). Thread-safe. */
ECHOMQ_API int echomq_worker_options_init(echomq_worker_options *opts, unsigned int version);

/* Create a worker for `queue` on the server at `url` (no I/O; opts may be
 * NULL: the defaults; version 1..4). Errors: EINVAL (URL, queue name,
 * option values, unknown version, TLS files as echomq_client_new), ENOMEM;
 * *out is NULL on error. */
ECHOMQ_API int echomq_worker_new(echomq_worker **out, const char *url, const char *queue,
                                 const echomq_worker_options *opts);
/* Same, returning the handle (NULL on error). */
ECHOMQ_API echomq_worker *echomq_worker_create(const char *url, const char *queue,
                                               const echomq_worker_options *opts);
/* Connect and start the engine. Errors: EINVAL (started already), ECONN,
 * ETIMEOUT, ETLS, ENOPERM, ESERVER; the message of a failed connect is kept for
 * echomq_worker_last_error. */
ECHOMQ_API int echomq_worker_start(echomq_worker *w);

/* Wait up to timeout_ms (0..ECHOMQ_WAIT_MAX_MS; 0 = do not wait) for a job
 * to run. ECHOMQ_OK with *out set, ECHOMQ_EMPTY at the timeout,
 * ECHOMQ_ECANCELED once the worker is stopping (no new job will come):
 * echomq_worker_stop was called, or idle_timeout_ms ran out (the only way
 * the engine stops by itself). Errors: EINVAL (not started, NULL out, a
 * timeout out of range). */
ECHOMQ_API int echomq_worker_next(echomq_worker *w, int64_t timeout_ms, echomq_job **out);

/* ---- Reporting a job ----
 * Each job handed out by echomq_worker_next is reported exactly once, by
 * one of the calls below; its settlement goes with the next round trip.
 * They return, besides the errors each names:
 *   ECHOMQ_ENOTFOUND  the engine does not hold the job: it was reported
 *                     already, or never handed out by this engine; also a
 *                     job whose lease the engine learnt was lost, unless
 *                     report_outcomes is 1. Nothing is sent;
 *   ECHOMQ_ECANCELED  the engine has stopped; the job comes back when its
 *                     lease expires. Nothing is sent.
 *
 * Report outcomes (echomq_worker_options.report_outcomes = 1): a report
 * that is taken returns what becomes of the job, computed by the engine
 * from the delivery it holds (the job's attempts and attempt budget as
 * claimed, and the retry delay asked for), by the rule the server's fail
 * script applies:
 *   ECHOMQ_OK          done: the job is acked;
 *   ECHOMQ_WILL_RETRY  failed with attempts left: back to its lane at once
 *                      (delay 0) or after its delay;
 *   ECHOMQ_WILL_DIE    failed on the last attempt of its budget, or
 *                      discarded (ECHOMQ_RETRY_DEAD): dead-lettered;
 *   ECHOMQ_ESTALE      the engine learnt the lease was lost while the job
 *                      ran (an extension was refused: the lease ran out and
 *                      the job may run elsewhere). Nothing is sent; exact.
 * OK, WILL_RETRY and WILL_DIE are exact about what the settlement does
 * when it lands. It does not land when the lease is lost before the next
 * round trip carries it (the lease ran out unextended, for instance while
 * the server was out of reach for longer than the lease) or when the
 * engine stops with the server out of reach: then the server refuses or
 * never sees it (echomq_worker_stats.lost counts a refusal), and the job
 * comes back by its lease like any lost lease, to run again or to die when
 * that was its last attempt. echomq_worker_stats (done, retried, delayed,
 * dead) counts what the settlements did. */

/* The job succeeded: acked with the next round trip. Errors: EINVAL (NULL
 * w or job). */
ECHOMQ_API int echomq_worker_done(echomq_worker *w, const echomq_job *job);
/* The job failed: retried after retry_delay_ms (0..ECHOMQ_DELAY_MAX_MS,
 * ECHOMQ_RETRY_BACKOFF, ECHOMQ_RETRY_DEFAULT, or ECHOMQ_RETRY_DEAD as
 * echomq_worker_discard) or dead-lettered when it used its attempt budget.
 * reason may be NULL (cut at ECHOMQ_REASON_MAX bytes). Errors: EINVAL (NULL
 * w or job, a bad delay). */
ECHOMQ_API int echomq_worker_fail(echomq_worker *w, const echomq_job *job, const char *reason,
                                  int64_t retry_delay_ms);
/* The job can never succeed: dead-lettered now, attempts left or not.
 * Errors: as echomq_worker_done. */
ECHOMQ_API int echomq_worker_discard(echomq_worker *w, const echomq_job *job, const char *reason);
/* The job succeeded with a result (0..ECHOMQ_RESULT_MAX bytes, copied), as
 * echomq_ack_result; in a queue's cost mode its lane is charged the measured
 * handler time. Errors: as echomq_worker_done, and ETOOLARGE (unless
 * report_outcomes is 1: see echomq_worker_done_with), EINVAL (NULL with a
 * non-zero length). */
ECHOMQ_API int echomq_worker_done_result(echomq_worker *w, const echomq_job *job, const char *result,
                                         size_t result_len);

/* A job report: what became of a job beyond done or failed, given with the
 * one call that settles it, so the settlement carries all of it: what the
 * job's work cost, charged to its lane in a queue's cost mode
 * (echomq_set_cost_mode), and a done job's result. Fields are only ever
 * added at the end. The struct is the caller's; the library copies what it
 * needs before the call returns. (echomq_report is another thing: lines of
 * text, echomq/inspect.h.) */
typedef struct echomq_job_report {
  unsigned int version;  /* ECHOMQ_JOB_REPORT_VERSION */
  uint64_t cost;         /* units of the handler's own (tokens, bytes,
                            calls), 0..ECHOMQ_ID_MAX; 0 = not reported: the
                            engine's measured handler time (µs from
                            echomq_worker_next to this call) is charged */
  /* Since version 2 (0.4.0): the job's result, 0..ECHOMQ_RESULT_MAX bytes
   * (binary-safe; NULL with length 0 = none), kept as echomq_ack_result
   * keeps one. For echomq_worker_done_with only: a failed job has no
   * result, and echomq_worker_fail_with refuses one (EINVAL). */
  const char *result;
  size_t result_len;
  /* Since version 3 (0.5.0): why a done job's result is not kept (NULL =
   * it is). A host that cannot encode what its handler returned says so
   * here, with no result bytes: the job completes all the same, and its
   * outcome records the reason (echomq_job_result_dropped, the `completed`
   * event's `result_dropped` field) instead of a result. At most
   * ECHOMQ_REASON_MAX bytes are kept. For echomq_worker_done_with only. */
  const char *result_dropped;
} echomq_job_report;
#define ECHOMQ_JOB_REPORT_VERSION 3
/* A caller built against version 1 (no result) passes 1, against version 2
 * (no result_dropped) passes 2. */
#define ECHOMQ_JOB_REPORT_VERSION_1 1
#define ECHOMQ_JOB_REPORT_VERSION_2 2
#define ECHOMQ_JOB_REPORT_INIT { ECHOMQ_JOB_REPORT_VERSION, 0, NULL, 0, NULL }
/* Fill *r with defaults (versions 1 and 2: that version's fields only).
 * Errors: EINVAL (NULL or unknown version). Thread-safe. */
ECHOMQ_API int echomq_job_report_init(echomq_job_report *r, unsigned int version);
/* echomq_worker_done / echomq_worker_fail with a report (r may be NULL: as
 * without one). done_with with a result and a cost is the one call for a
 * handler that returns a result and reports its own cost: the result is
 * kept and the lane charged that cost, in the same round trip. Errors: as
 * echomq_worker_done / _fail; EINVAL for a bad report (unknown version,
 * cost over ECHOMQ_ID_MAX, NULL result with a non-zero length, a result or
 * a result_dropped given to fail_with, both a result and a
 * result_dropped), ETOOLARGE for a result over ECHOMQ_RESULT_MAX unless
 * report_outcomes is 1. Nothing is settled when a report is refused: the
 * job is still the caller's to report.
 *
 * A result too large to keep never fails a job that succeeded: with
 * report_outcomes = 1, done_with and done_result take a result over
 * ECHOMQ_RESULT_MAX as a result dropped, the reason "result of N bytes is
 * over ECHOMQ_RESULT_MAX (65536)", and return ECHOMQ_OK: the job completes
 * (and so never runs again because of its result). */
ECHOMQ_API int echomq_worker_done_with(echomq_worker *w, const echomq_job *job, const echomq_job_report *r);
ECHOMQ_API int echomq_worker_fail_with(echomq_worker *w, const echomq_job *job, const char *reason,
                                       int64_t retry_delay_ms, const echomq_job_report *r);

/* ---- Stopping ---- */

/* Stop modes. Both give prefetched, unstarted jobs back to their lanes (at
 * their mint position, at once, the attempt not counted). */
#define ECHOMQ_STOP_DRAIN 1   /* wait (up to the timeout) for running jobs to
                                 be reported, and settle them */
#define ECHOMQ_STOP_ABANDON 0 /* stop now: running jobs come back when their
                                 leases expire */

/* Stop the engine (idempotent; also after it stopped itself on its idle
 * timeout, to wait for its threads). timeout_ms: how long a drain waits
 * (ECHOMQ_WORKER_DRAIN_MS_DEFAULT is the bindings' default; negative = 0).
 * Returns ECHOMQ_OK, or ECHOMQ_ETIMEOUT when a drain ended with jobs still
 * running: it timed out, or an abandon from another thread cut it short
 * (they come back by their leases). A drain and an abandon may run on two
 * threads at once (a second signal while a graceful stop waits). Errors:
 * EINVAL (NULL w, unknown mode). */
ECHOMQ_API int echomq_worker_stop(echomq_worker *w, int mode, int64_t timeout_ms);

/* ---- Figures and errors ---- */

typedef struct echomq_worker_stats {
  unsigned int version;  /* ECHOMQ_WORKER_STATS_VERSION */
  uint64_t claimed;      /* jobs claimed */
  uint64_t done;         /* acks settled */
  uint64_t failed;       /* fails settled (retried, delayed or dead) */
  uint64_t released;     /* prefetched jobs given back unstarted */
  uint64_t extended;     /* lease extensions */
  uint64_t lost;         /* leases lost (expired and reclaimed elsewhere) */
  uint64_t round_trips;  /* calls to the server (excluding idle waits) */
  uint64_t errors;       /* failed calls (retried after a backoff) */
  uint64_t running;      /* handed out, not reported yet */
  uint64_t buffered;     /* claimed, not handed out yet */
  /* What the settled fails became: failed = retried + delayed + dead. */
  uint64_t retried;      /* straight back to their lanes */
  uint64_t delayed;      /* to the delayed set for a later retry (backoff) */
  uint64_t dead;         /* dead-lettered: out of attempts, or discarded */
  /* Since version 2 (0.3.0): */
  uint64_t unconfirmed;  /* round trips done but not confirmed durable in
                            time (wait_replicas / wait_aof) */
  /* Since version 3 (0.5.0; echomq/lifecycle.h): */
  uint64_t canceled;     /* jobs that settled as canceled (echomq_cancel) */
  uint64_t timed_out;    /* attempts that ran out of their time limit (a
                            job's timeout_ms or the queue's default) */
} echomq_worker_stats;
#define ECHOMQ_WORKER_STATS_VERSION 3
/* A caller built against version 1 (no unconfirmed field) passes 1. */
#define ECHOMQ_WORKER_STATS_VERSION_1 1
/* A caller built against version 2 (no canceled, timed_out) passes 2. */
#define ECHOMQ_WORKER_STATS_VERSION_2 2
/* Fills *out, up to the fields of out->version (set it first). Errors:
 * EINVAL (NULL, unknown version). */
ECHOMQ_API int echomq_worker_stats_get(echomq_worker *w, echomq_worker_stats *out);

/* Copies the message of the engine's last failed server call ("" if none)
 * into buf (cut to cap - 1 bytes, NUL-terminated; buf may be NULL when cap
 * is 0) and returns its status (0 if none; ECHOMQ_EINVAL for a NULL w). The
 * engine retries failed calls itself after a backoff; echomq_worker_stats
 * .errors counts them. The shape of echomq_client_last_error. */
ECHOMQ_API int echomq_worker_last_error(echomq_worker *w, char *buf, size_t cap);

/* Stop (abandon) if running, and free. NULL is a no-op. */
ECHOMQ_API void echomq_worker_free(echomq_worker *w);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_WORKER_H */
