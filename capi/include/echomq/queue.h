/*
 * echomq/queue.h — enqueue, claim and settle: the queue's everyday path.
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h.
 */
#ifndef ECHOMQ_QUEUE_H
#define ECHOMQ_QUEUE_H

#include "common.h"
#include "job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every call here takes a connected client handle (echomq/client.h), used by
 * one thread at a time, and records its status and message on it. Batches
 * and settlement lists are plain data owned by the caller: no I/O, one
 * thread at a time, freed with their *_free.
 *
 * ---- Enqueue ---- */

/* One header of a job (echomq_enqueue_options.headers): borrowed strings,
 * NUL-terminated; limits in echomq/common.h (ECHOMQ_HEADERS_MAX ...). */
typedef struct echomq_header {
  const char *key;
  const char *value;
} echomq_header;

typedef struct echomq_enqueue_options {
  unsigned int version;   /* ECHOMQ_ENQUEUE_OPTIONS_VERSION */
  int64_t delay_ms;       /* 0 = ready now; 0..ECHOMQ_DELAY_MAX_MS */
  uint32_t max_attempts;  /* the job's attempt budget: 0 = the queue's default
                             (ECHOMQ_DEFAULT_MAX_ATTEMPTS unless set);
                             1..ECHOMQ_ATTEMPTS_MAX */
  /* Version 2 (0.3.0). */
  const char *idempotency_key; /* NULL = none; else 1..ECHOMQ_DEDUP_KEY_MAX
                                  bytes, NUL-terminated (echomq_enqueue only;
                                  a batch takes a key per job) */
  int64_t dedup_window_ms;     /* how long a key is remembered: 0 = default
                                  (24 h), 1..ECHOMQ_DEDUP_WINDOW_MAX_MS */
  /* Version 3 (0.4.0): this job's own retention once it completes (see
   * echomq_set_retention), instead of the queue's: kept keep_ms after it
   * completes (0 = no time bound; 1..ECHOMQ_KEEP_MAX_MS), and/or while it
   * is among the last keep_last jobs of the queue that completed with a
   * retention (0 = no count bound; 1..ECHOMQ_KEEP_LAST_MAX). Both 0: the
   * queue's retention. A negative keep_ms is EINVAL. */
  int64_t keep_ms;
  uint64_t keep_last;
  /* Version 4 (0.4.0): an estimate of each job's cost, in the units of the
   * queue's cost mode (echomq_set_cost_mode), 0 = none; 1..ECHOMQ_ID_MAX,
   * above is EINVAL. It applies to every job of the call. In cost mode the
   * estimate stands in until the real cost is known: the job's lane is
   * charged it when the job is claimed, and a settlement that carries a
   * charge for the lane (echomq_worker_done_with, a settle with a cost)
   * refunds it, so the real cost replaces it; a settlement without a charge
   * or an expired lease leaves it charged. Outside cost mode it is checked
   * and not kept (docs/architecture.md, "Fairness by work"). */
  uint64_t cost_estimate;
  /* Version 5 (0.5.0): an absolute due time, server ms since the Unix epoch
   * (0 = none; then delay_ms applies). Compared with the server's clock when
   * the job is enqueued: a time past (or now) is due at once, a later one
   * waits in the delayed set like a delay; more than ECHOMQ_DELAY_MAX_MS
   * ahead of the server's clock is EINVAL (from the server, nothing
   * written). With at_ms set, delay_ms must be 0 (EINVAL). */
  int64_t at_ms;
  /* Version 6 (0.5.0; echomq/lifecycle.h): a time limit and a start
   * deadline for every job of the call.
   * timeout_ms: how long one attempt may run (0 = the queue's default,
   *   echomq_set_default_timeout; 1..ECHOMQ_TIMEOUT_MAX_MS). When it runs
   *   out a worker engine stops extending the lease and tells the handler
   *   (echomq_job_halted), and the attempt fails ("timed out") and is
   *   retried by the usual policy; the server refuses to extend the lease
   *   past it (ECHOMQ_ETIMELIMIT).
   * expires_at_ms (server ms since the Unix epoch) or ttl_ms (ms after the
   *   enqueue, 1..ECHOMQ_TTL_MAX_MS), not both; 0 = none: a job not started
   *   by then never starts. It goes to the dead letters with last error
   *   "expired" (stats count it in `expired`), or is removed with
   *   ECHOMQ_EXPIRE_DROP in expire_flags. A deadline passed already, more
   *   than ECHOMQ_TTL_MAX_MS ahead, or not after the job falls due (delay)
   *   is EINVAL (from the server, on its clock: nothing written). */
  int64_t timeout_ms;
  int64_t expires_at_ms;
  int64_t ttl_ms;
  unsigned int expire_flags; /* 0 or ECHOMQ_EXPIRE_DROP */
  /* Version 7 (0.5.0): a name (the job's kind, as a tasks layer dispatches
   * on it) and headers for every job of the call, kept with the job through
   * retries and redrives and shown by lookups, dead listings and claims
   * (echomq_job_name, echomq_job_header). name: NULL or "" = none, else
   * 1..ECHOMQ_JOB_NAME_MAX bytes; headers: header_count entries (NULL with
   * 0 = none). Limits and allowed bytes: echomq/common.h; a bad name or
   * header is EINVAL, one over a limit ETOOLARGE, before any I/O. A job
   * with neither is stored as before and costs the server nothing more. */
  const char *name;
  const echomq_header *headers;
  size_t header_count;
} echomq_enqueue_options;

/* An expired job is removed whole, not dead-lettered (expire_flags). */
#define ECHOMQ_EXPIRE_DROP 1

/* 7, 6 and 5 in 0.5.0, 4 and 3 in 0.4.0, 2 since 0.3.0; a caller built
 * against version 1 passes 1 and has no idempotency key, against version 2
 * passes 2 and has no retention of its own, against version 3 passes 3 and
 * has no estimate, against version 4 passes 4 and has no at_ms, against
 * version 5 passes 5 and has no time limit or start deadline, against
 * version 6 passes 6 and has no name or headers. */
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION 7
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_1 1
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_2 2
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_3 3
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_4 4
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_5 5
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_6 6
#define ECHOMQ_ENQUEUE_OPTIONS_INIT { ECHOMQ_ENQUEUE_OPTIONS_VERSION, 0, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, 0 }
/* Fill *opts with defaults (an older version: that version's fields only).
 * Errors: EINVAL (NULL or unknown version). */
ECHOMQ_API int echomq_enqueue_options_init(echomq_enqueue_options *opts, unsigned int version);

/* Enqueue one job on lane `group`. *id_out (may be NULL) receives the job id;
 * ids grow in mint order.
 * With an idempotency key (options version 2): when the queue saw the same
 * key within its window, nothing is enqueued, *id_out receives the first
 * job's id and the call returns ECHOMQ_DUPLICATE (3, not an error; it comes
 * back even if that job has since finished or was deleted). Otherwise the
 * job is enqueued and the key remembered for the window. Without a key this
 * never returns ECHOMQ_DUPLICATE.
 * Errors: EINVAL (names, options), ETOOLARGE (payload), EFULL (the lane is
 * at its size cap: nothing written), ECONN, ETIMEOUT (unknown outcome: the
 * job may exist), EOOM (the server is full: nothing was written; drain or
 * free memory and retry), ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_enqueue(echomq_client *c, const char *queue, const char *group,
                              const char *payload, size_t payload_len,
                              const echomq_enqueue_options *opts, uint64_t *id_out);

/* A batch collects many jobs to enqueue in one round trip. Each job is
 * validated when it is added, so a bad job is refused before any I/O. */
/* A new, empty batch. Errors: EINVAL (NULL out), ENOMEM. */
ECHOMQ_API int echomq_batch_new(echomq_batch **out);
ECHOMQ_API echomq_batch *echomq_batch_create(void); /* NULL on ENOMEM */
/* Copies group and payload. Errors: EINVAL (group), ETOOLARGE (payload over
 * ECHOMQ_HARD_MAX_PAYLOAD, or batch over ECHOMQ_BATCH_MAX), ENOMEM. The
 * client's own max_payload_bytes is checked again at enqueue time. */
ECHOMQ_API int echomq_batch_add(echomq_batch *b, const char *group,
                                const char *payload, size_t payload_len);
ECHOMQ_API size_t echomq_batch_count(const echomq_batch *b);
/* Job id of entry i after a successful echomq_enqueue_batch (0 before). */
ECHOMQ_API uint64_t echomq_batch_id(const echomq_batch *b, size_t i);
/* Add a job with an idempotency key (1..ECHOMQ_DEDUP_KEY_MAX bytes; NULL
 * or "" = none), deduplicated as echomq_enqueue does, also against earlier
 * entries of the same batch. The window is the options' dedup_window_ms.
 * Copies group, payload and key (the caller keeps its buffers).
 * Errors: as echomq_batch_add, and EINVAL for a key that is too long. */
ECHOMQ_API int echomq_batch_add_keyed(echomq_batch *b, const char *group, const char *payload,
                                      size_t payload_len, const char *idempotency_key);
/* Add a job with its own name and headers (and an idempotency key, NULL or
 * "" = none, as echomq_batch_add_keyed): name NULL or "" = none, else
 * 1..ECHOMQ_JOB_NAME_MAX bytes; headers: header_count entries (NULL with 0 =
 * none), with the limits and allowed bytes of the options' (echomq/common.h).
 * With the options' name and headers (version 7) as well, an entry's own
 * name wins over the options', and its headers are the options' plus its
 * own, its own winning for a key both have (a trace context put in the
 * options' headers reaches every entry); an entry with neither takes the
 * options'. A batch with no names or headers costs the server nothing more.
 * Copies group, payload, key, name and headers (the caller keeps its
 * buffers); the batch is plain data, one thread at a time.
 * Errors, before any I/O, the batch unchanged: as echomq_batch_add_keyed,
 * and EINVAL for a bad name or header (a control character, an empty or
 * repeated key, a NULL key or value, headers NULL with a non-zero count),
 * ETOOLARGE for a name, a header count or headers' bytes over their limit. */
ECHOMQ_API int echomq_batch_add_named(echomq_batch *b, const char *group, const char *payload,
                                      size_t payload_len, const char *idempotency_key, const char *name,
                                      const echomq_header *headers, size_t header_count);
/* 1 if entry i was a duplicate after a successful echomq_enqueue_batch (its
 * id is the first job's), else 0. */
ECHOMQ_API int echomq_batch_duplicate(const echomq_batch *b, size_t i);
/* Empty the batch for reuse. */
ECHOMQ_API void echomq_batch_clear(echomq_batch *b);
ECHOMQ_API void echomq_batch_free(echomq_batch *b);

/* Enqueue every job of the batch with the same options, in batch order, in
 * one script call (one round trip). All or nothing: a refused batch writes
 * nothing. Errors: as echomq_enqueue, EINVAL for an empty batch, and
 * ETOOLARGE (before any I/O) when an entry's own headers together with the
 * options' pass a limit (echomq_batch_add_named). */
ECHOMQ_API int echomq_enqueue_batch(echomq_client *c, const char *queue, echomq_batch *b,
                                    const echomq_enqueue_options *opts);

/* ---- Claim ----
 * Every claim rotates the ring one step and serves the lane it just
 * rotated. Each claim also brings back (bounded work per call) expired leases
 * and due delayed jobs, so a process that only claims and acks needs no
 * other daemon. lease_ms: 1..ECHOMQ_LEASE_MAX_MS. */

/* Claim one job. Returns ECHOMQ_OK with *out set, or ECHOMQ_EMPTY with *out
 * NULL. Free the job with echomq_job_free. Claims and the settling calls
 * below keep working on a server that is out of memory (maxmemory with
 * noeviction), so workers can drain the backlog that fills it.
 * Errors: EINVAL, ECONN, ETIMEOUT (unknown outcome: a job may have been
 * leased; it comes back when its lease expires), ESERVER, ENOPERM. */
ECHOMQ_API int echomq_claim(echomq_client *c, const char *queue, int64_t lease_ms,
                            echomq_job **out);

/* Weighted claim: up to K jobs from ONE lane, K = min(weight, pending depth,
 * limit - active, max). max: 1..ECHOMQ_WCLAIM_MAX. Returns ECHOMQ_OK with a
 * list of 1..K jobs in mint order, or ECHOMQ_EMPTY with *out NULL.
 * Errors: as echomq_claim. */
ECHOMQ_API int echomq_wclaim(echomq_client *c, const char *queue, int64_t lease_ms,
                             uint32_t max, echomq_job_list **out);

/* Blocking claim: like echomq_claim, but when nothing is ready waits on the
 * server (BLPOP on the queue's wake-up key, no polling loop) for up to
 * timeout_ms (1..ECHOMQ_WAIT_MAX_MS) and wakes as soon as work arrives, a
 * delayed job falls due or a lease expires. Returns ECHOMQ_EMPTY at the timeout.
 * Errors: as echomq_claim, plus ECANCELED (echomq_client_cancel). */
ECHOMQ_API int echomq_bclaim(echomq_client *c, const char *queue, int64_t lease_ms,
                             int64_t timeout_ms, echomq_job **out);

/* ---- Settle ----
 * Settle a leased job. `token` is the job's echomq_job_token of the delivery
 * being settled. A token that is not the current delivery's, or a job that is
 * no longer leased, gets ECHOMQ_ESTALE and changes nothing: its lease was
 * lost, or it was settled already (a second ack of a completed job is
 * ESTALE, also once the job is gone). ECHOMQ_ENOTFOUND is only for an id the
 * queue never minted (above its id counter). So are extend and progress.
 * A job canceled while leased (echomq_cancel, echomq/lifecycle.h) settles
 * as canceled whatever the settlement says (dead-lettered, last error
 * "canceled", never retried), and the call returns ECHOMQ_WAS_CANCELED (7,
 * not an error). */

/* Acknowledge: the job is done and deleted. Returns ECHOMQ_OK, or
 * ECHOMQ_WAS_CANCELED (the job was canceled: it settled as canceled).
 * Errors: EINVAL, ESTALE, ENOTFOUND, ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_ack(echomq_client *c, const char *queue, uint64_t id, uint64_t token);

/* Acknowledge n jobs (1..ECHOMQ_WCLAIM_MAX) in one round trip, typically
 * the jobs of one wclaim. Each job is settled on its own: statuses[i] (may
 * be NULL) receives ECHOMQ_OK, ECHOMQ_ESTALE or ECHOMQ_ENOTFOUND for job i
 * (a refused job changes nothing), or ECHOMQ_WAS_CANCELED (settled as
 * canceled), and *acked (may be NULL) how many were acked. Returns ECHOMQ_OK when the call went through, even if some jobs
 * were refused. Errors: EINVAL (NULL arrays, n out of range, an id or token
 * of 0: nothing is sent), ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_ack_many(echomq_client *c, const char *queue, const uint64_t *ids,
                               const uint64_t *tokens, size_t n, int *statuses, size_t *acked);

/* Fused ack-and-claim, one round trip: acknowledge (id, token), then claim
 * the next job exactly as echomq_claim would. If the ack is refused (ESTALE,
 * ENOTFOUND) nothing is claimed and that status is returned. On success
 * returns ECHOMQ_OK with *next set or ECHOMQ_EMPTY with *next NULL (the ack
 * happened in both cases; a job canceled while leased settled as canceled,
 * which this call does not report: use echomq_settle_claim to see it).
 * Errors: as echomq_claim, and ESTALE, ENOTFOUND (the ack was refused:
 * nothing changed, nothing claimed). */
ECHOMQ_API int echomq_ack_claim(echomq_client *c, const char *queue, uint64_t id,
                                uint64_t token, int64_t lease_ms, echomq_job **next);

/* Fail the current attempt with a reason (may be NULL; cut at
 * ECHOMQ_REASON_MAX bytes). retry_delay_ms: 0 = straight back to its lane,
 * > 0 = after that delay (<= ECHOMQ_DELAY_MAX_MS), ECHOMQ_RETRY_BACKOFF =
 * exponential, ECHOMQ_RETRY_DEAD = do not retry: dead-letter it now,
 * attempts left or not (the C form of Python's echomq.NoRetry and Go's
 * echomq.Discard; echomq_worker_discard in the worker engine). When the job
 * has used its attempt budget (echomq_job_max_attempts) it is dead-lettered
 * instead. *outcome (may be NULL) receives an echomq_fail_outcome
 * (echomq/common.h). Returns ECHOMQ_OK, or ECHOMQ_WAS_CANCELED (the job was
 * canceled: it settled as canceled, *outcome is ECHOMQ_FAIL_DEAD).
 * Errors: EINVAL, ESTALE, ENOTFOUND, ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_fail(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                           const char *reason, int64_t retry_delay_ms, int *outcome);

/* Acknowledge with a result: as echomq_ack, and when the job's outcome is
 * retained (echomq_set_retention, a job's own keep_ms / keep_last, or a
 * waiter) the result (0..ECHOMQ_RESULT_MAX bytes, binary) is kept with it
 * and shown by echomq_get_job and echomq_wait_job; otherwise it is dropped.
 * Returns as echomq_ack. Errors: as echomq_ack, and ETOOLARGE for a result over the limit, EINVAL
 * for NULL with a non-zero length (nothing sent). */
ECHOMQ_API int echomq_ack_result(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                                 const char *result, size_t result_len);

/* Extend the lease to server now + lease_ms. *lease_until_ms (may be NULL)
 * receives the new deadline. Returns ECHOMQ_OK, or ECHOMQ_WAS_CANCELED: the
 * job was canceled (echomq_cancel): extended, but stop its work and settle
 * it (it settles as canceled). Errors: EINVAL, ESTALE, ENOTFOUND,
 * ETIMELIMIT (its time limit ran out: not extended; the attempt fails when
 * the lease runs out), ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_extend(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                             int64_t lease_ms, int64_t *lease_until_ms);

/* ---- Batches ----
 * Many turns of the ring, and settlement fused with the next claim,
 * in one round trip each. */

/* Claim up to n jobs (1..ECHOMQ_BATCH_MAX) in one call. weighted = 0: the
 * jobs, order and tokens of n successive echomq_claim calls from the same
 * state (one job per lane per turn). weighted = 1: turns served as
 * echomq_wclaim serves them (K = min(weight, depth, limit - active) each),
 * until n jobs are taken. Recovery of due work runs once per call (bounded
 * by ECHOMQ_RECOVER_MAX). Returns ECHOMQ_OK with a list of 1..n jobs in
 * service order, or ECHOMQ_EMPTY with *out NULL.
 * Errors: as echomq_claim; ETOOLARGE for n over ECHOMQ_BATCH_MAX. */
ECHOMQ_API int echomq_claim_batch(echomq_client *c, const char *queue, int64_t lease_ms,
                                  uint32_t n, int weighted, echomq_job_list **out);

/* A settlement list: acks and fails of held jobs, sent in one call. Plain
 * data, no I/O; one thread at a time. */
/* A new, empty list. Errors: EINVAL (NULL out), ENOMEM. */
ECHOMQ_API int echomq_settle_new(echomq_settle **out);
ECHOMQ_API echomq_settle *echomq_settle_create(void); /* NULL on ENOMEM */
/* Add an ack. Errors: EINVAL (id or token 0 or above ECHOMQ_ID_MAX),
 * ETOOLARGE (more than ECHOMQ_BATCH_MAX entries), ENOMEM. */
ECHOMQ_API int echomq_settle_ack(echomq_settle *s, uint64_t id, uint64_t token);
/* Add an ack with a result (copied), as echomq_ack_result. Errors: as
 * echomq_settle_ack, and ETOOLARGE (result over ECHOMQ_RESULT_MAX), EINVAL
 * (NULL with a non-zero length). */
ECHOMQ_API int echomq_settle_ack_result(echomq_settle *s, uint64_t id, uint64_t token,
                                        const char *result, size_t result_len);
/* Add an ack that reports what the job's work cost: `cost` units
 * (0..ECHOMQ_ID_MAX; 0 charges nothing) charged to lane `group` (the job's,
 * echomq_job_group) in the same call, as echomq_charge does, in a queue's
 * cost mode. Sent with the ack, the charge replaces the job's cost estimate
 * (echomq_enqueue_options.cost_estimate); a separate echomq_charge does not.
 * Errors: as echomq_settle_ack, and EINVAL (bad group or cost). */
ECHOMQ_API int echomq_settle_ack_cost(echomq_settle *s, uint64_t id, uint64_t token,
                                      const char *group, uint64_t cost);
/* Add a fail. reason may be NULL (cut at ECHOMQ_REASON_MAX bytes);
 * retry_delay_ms as echomq_fail, or ECHOMQ_RETRY_DEAD, ECHOMQ_RETRY_RELEASE.
 * Errors: as echomq_settle_ack, and EINVAL for a bad delay. */
ECHOMQ_API int echomq_settle_fail(echomq_settle *s, uint64_t id, uint64_t token,
                                  const char *reason, int64_t retry_delay_ms);
ECHOMQ_API size_t echomq_settle_count(const echomq_settle *s);
/* After a successful echomq_settle_claim: entry i's result, in the order
 * added. Acks: ECHOMQ_OK, ECHOMQ_ESTALE (the lease was lost), ECHOMQ_ENOTFOUND.
 * Fails: an echomq_fail_outcome (ECHOMQ_FAIL_RETRY also for a release), or
 * ESTALE, ENOTFOUND. Either: ECHOMQ_WAS_CANCELED (the job was canceled while
 * leased: it settled as canceled). Before a call, or i out of range:
 * ECHOMQ_EINVAL. */
ECHOMQ_API int echomq_settle_status(const echomq_settle *s, size_t i);
ECHOMQ_API void echomq_settle_clear(echomq_settle *s);
ECHOMQ_API void echomq_settle_free(echomq_settle *s);

/* Settle every entry of s (may be NULL or empty), then claim a batch of n
 * jobs (0 = claim nothing) as echomq_claim_batch does, in one script call:
 * one round trip per batch of work. Entries are settled each on its own: a
 * refused one (its status in s) changes nothing and does not stop the
 * claim. Returns ECHOMQ_OK (with *out NULL when n = 0), or ECHOMQ_EMPTY
 * when n > 0 and nothing was claimed (the entries were settled).
 * Settling again after an unknown outcome (ETIMEOUT) is safe: an entry that
 * went through comes back ESTALE or ENOTFOUND, never settled twice.
 * Errors: EINVAL (nothing to do, bad n or lease: nothing sent), ETOOLARGE,
 * ECONN, ETIMEOUT (unknown outcome; jobs claimed by the lost call come back
 * when their leases expire), ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_settle_claim(echomq_client *c, const char *queue, echomq_settle *s,
                                   int64_t lease_ms, uint32_t n, int weighted,
                                   echomq_job_list **out);

/* Extend n leases (1..ECHOMQ_BATCH_MAX) to server now + lease_ms in one
 * call; statuses[i] (may be NULL) gets OK, ESTALE, ENOTFOUND, WAS_CANCELED
 * (extended; the job was canceled) or ETIMELIMIT (not extended) for each, and
 * *lease_until_ms (may be NULL) the new deadline. Returns ECHOMQ_OK when the
 * call went through. Errors: EINVAL, ECONN, ETIMEOUT, ESERVER. */
ECHOMQ_API int echomq_extend_many(echomq_client *c, const char *queue, const uint64_t *ids,
                                  const uint64_t *tokens, size_t n, int64_t lease_ms,
                                  int *statuses, int64_t *lease_until_ms);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_QUEUE_H */
