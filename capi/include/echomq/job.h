/*
 * echomq/job.h — job handles: the snapshots claims, lookups and listings return.
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h.
 */
#ifndef ECHOMQ_JOB_H
#define ECHOMQ_JOB_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A job handle is a snapshot of one job, as a claim (a delivery), a lookup
 * (echomq_get_job, echomq_wait_job) or a dead listing saw it. It is plain
 * data: it does no I/O, may move between threads, and concurrent reads are
 * safe. The caller frees it with echomq_job_free (or, for a job inside a
 * list, with the list). Every accessor takes NULL and then returns 0 or "".
 * Strings and bytes it returns are owned by the handle. */

ECHOMQ_API uint64_t echomq_job_id(const echomq_job *j);
/* The lane (group) name, NUL-terminated. */
ECHOMQ_API const char *echomq_job_group(const echomq_job *j);
/* Payload bytes and length (*len may be NULL). Not NUL-terminated in
 * general, though a NUL is stored after the last byte for convenience. */
ECHOMQ_API const char *echomq_job_payload(const echomq_job *j, size_t *len);
ECHOMQ_API size_t echomq_job_payload_len(const echomq_job *j);
/* Fencing token of this delivery (1..ECHOMQ_ID_MAX). Pass it to ack, fail
 * and extend. Since 0.4 every delivery of a job gets a token greater than
 * all its earlier deliveries' (redeliveries after a lease ran out, retries,
 * redrives), so a downstream store may keep the highest token it saw per
 * job and refuse a write with a lower one. It is
 * tick * ECHOMQ_TOKEN_SPREAD + nonce bits, tick = max(the previous tick + 1,
 * server ms since ECHOMQ_TOKEN_EPOCH_MS): a delivery lost in a failover and
 * the one that replaces it differ, the later one greater while the promoted
 * server's clock is not behind the old primary's by more than the failover
 * took (docs/architecture.md, "Fencing tokens"). A job looked up by id
 * (echomq_get_job, echomq_wait_job) or listed dead (echomq_dead) carries the
 * fencing token of its latest delivery (0 if it was never delivered):
 * everywhere the fencing token, never an attempt count (until 0.5 a dead
 * listing gave the attempts used here); echomq_job_attempt gives attempts. */
ECHOMQ_API uint64_t echomq_job_token(const echomq_job *j);
/* The job's attempt budget: how many attempts it may use before it is
 * dead-lettered (1..ECHOMQ_ATTEMPTS_MAX). */
ECHOMQ_API uint32_t echomq_job_max_attempts(const echomq_job *j);
/* Server ms: lease deadline (0 if not leased), enqueue time, and for dead
 * jobs the time of death (0 otherwise). */
ECHOMQ_API int64_t echomq_job_lease_until_ms(const echomq_job *j);
ECHOMQ_API int64_t echomq_job_enqueued_at_ms(const echomq_job *j);
ECHOMQ_API int64_t echomq_job_dead_at_ms(const echomq_job *j);
/* Reason given by the last fail of this job ("" if none): on a claimed
 * job, why the previous attempt failed; on a dead job, why it died. */
ECHOMQ_API const char *echomq_job_last_error(const echomq_job *j);
/* Version 0.3 accessors. The job's echomq_job_state (echomq/common.h). */
ECHOMQ_API int echomq_job_state_of(const echomq_job *j);
/* Which attempt of its current budget this delivery is, 1..the budget
 * (for a dead job: the attempts of its last budget). A redrive gives a fresh
 * budget; a job given back unstarted (ECHOMQ_RETRY_RELEASE) did not use an
 * attempt. The token is not an attempt count (see echomq_job_token). 0 for
 * NULL. */
ECHOMQ_API uint32_t echomq_job_attempt(const echomq_job *j);
/* Server ms a delayed job falls due (0 for other states). */
ECHOMQ_API int64_t echomq_job_due_at_ms(const echomq_job *j);
/* Version 0.4 accessors, set by echomq_get_job and echomq_wait_job (0 or
 * empty on claimed jobs and dead listings). Server ms of the job's first
 * delivery (0 before it, or when outcomes were off then), and of its
 * completion or death (0 while it lives). */
ECHOMQ_API int64_t echomq_job_started_at_ms(const echomq_job *j);
ECHOMQ_API int64_t echomq_job_finished_at_ms(const echomq_job *j);
/* The last progress the job reported (echomq_progress) and, for a retained
 * completed job, the result it was acked with: bytes and length (*len may
 * be NULL), "" when none; owned by the job handle. */
ECHOMQ_API const char *echomq_job_progress(const echomq_job *j, size_t *len);
ECHOMQ_API const char *echomq_job_result(const echomq_job *j, size_t *len);
/* Since 0.5.0, for a retained completed job: why its result was not kept
 * ("" when it was, or when it had none), as "result of N bytes is over
 * ECHOMQ_RESULT_MAX (65536)" or the reason a host gave
 * (echomq_job_report.result_dropped). The job completed all the same.
 * Owned by the job handle. */
ECHOMQ_API const char *echomq_job_result_dropped(const echomq_job *j);
/* Since 0.5.0, on claimed, looked-up and dead jobs (a completed job's
 * outcome keeps none): the name it was enqueued with ("" = none), and its
 * headers: a count, the key and value of header i (NULL when i is out of
 * range), and the value of header `key` (NULL when it has none). Strings
 * NUL-terminated, owned by the job handle. */
ECHOMQ_API const char *echomq_job_name(const echomq_job *j);
ECHOMQ_API size_t echomq_job_header_count(const echomq_job *j);
ECHOMQ_API const char *echomq_job_header_key(const echomq_job *j, size_t i);
ECHOMQ_API const char *echomq_job_header_value(const echomq_job *j, size_t i);
ECHOMQ_API const char *echomq_job_header(const echomq_job *j, const char *key);
ECHOMQ_API void echomq_job_free(echomq_job *j);

/* A list of jobs (wclaim, batch claims, dead listing). Jobs inside are
 * owned by the list: freed with it, never with echomq_job_free. */
ECHOMQ_API size_t echomq_job_list_count(const echomq_job_list *l);
/* Borrowed pointer, NULL if i is out of range. */
ECHOMQ_API const echomq_job *echomq_job_list_at(const echomq_job_list *l, size_t i);
ECHOMQ_API void echomq_job_list_free(echomq_job_list *l);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_JOB_H */
