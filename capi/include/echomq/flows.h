/*
 * echomq/flows.h — flows: jobs that wait for other jobs of the same queue.
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h.
 */
#ifndef ECHOMQ_FLOWS_H
#define ECHOMQ_FLOWS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flows (0.5.0; docs/operations.md "Flows"). A flow is a forest of jobs of
 * one queue: a job with children (a parent) waits, in its own place
 * (ECHOMQ_JOB_WAITING), until every child has finished; then it joins its
 * lane at its mint position and takes its turn in the ring like any job.
 * Children run in their own lanes (any lanes of the queue). A child's
 * outcome (state, attempts, error, the result it was acked with) is kept for
 * its parent whatever the queue's retention says, and freed when the parent
 * settles (its ack or its death). A parent runs once, after its last child
 * finished, never before. A sharded queue keeps a flow on one shard: the
 * shard of its first job's lane (children's lanes are served there).
 *
 * What a parent does when a child dies (the child's on_fail): */
typedef enum echomq_flow_on_fail {
  ECHOMQ_FLOW_FAIL = 0,     /* the parent dies too: to the dead letters with
                               the reason "child <id> failed: <its reason>";
                               on up the tree by its own on_fail */
  ECHOMQ_FLOW_IGNORE = 1,   /* the parent runs; the child is left out of
                               its children's outcomes */
  ECHOMQ_FLOW_CONTINUE = 2  /* the parent runs, the death (ECHOMQ_JOB_DEAD,
                               its reason) among its children's outcomes */
} echomq_flow_on_fail;

#define ECHOMQ_FLOW_MAX 1000      /* jobs in one flow (one script call) */
#define ECHOMQ_FLOW_NAME_MAX 256  /* bytes of a job's name in its flow */

/* A flow being built: the jobs and their links, named by names local to the
 * flow. Not thread-safe; free with echomq_flow_free (NULL is fine). */
typedef struct echomq_flow echomq_flow;
/* Errors: ENOMEM. */
ECHOMQ_API int echomq_flow_new(echomq_flow **out);
ECHOMQ_API echomq_flow *echomq_flow_create(void); /* NULL on ENOMEM */
ECHOMQ_API void echomq_flow_free(echomq_flow *f);
/* Adds a job: `name` (1..ECHOMQ_FLOW_NAME_MAX bytes, unique in the flow) is
 * how other jobs of the flow name it; `parent` names the job that waits for
 * this one (NULL or "" = none: a root), added before or after it; on_fail
 * (echomq_flow_on_fail) is what that parent does if this job dies; `queue`
 * NULL means the flow's queue (a job of another queue is refused at
 * enqueue: a flow lives in one queue); group and payload as echomq_enqueue.
 * The names are copied. Errors: EINVAL (NULL or bad name, on_fail, group;
 * a name twice), ETOOLARGE (the flow holds ECHOMQ_FLOW_MAX jobs), ENOMEM. */
ECHOMQ_API int echomq_flow_add(echomq_flow *f, const char *name, const char *parent, int on_fail,
                               const char *queue, const char *group, const char *payload,
                               size_t payload_len);
ECHOMQ_API size_t echomq_flow_count(const echomq_flow *f);
/* The id of job i (in the order added) after a successful
 * echomq_enqueue_flow; 0 before, or when i is out of range. */
ECHOMQ_API uint64_t echomq_flow_id(const echomq_flow *f, size_t i);
/* The id of the job named `name` after a successful echomq_enqueue_flow
 * (0 when none has that name, or before). */
ECHOMQ_API uint64_t echomq_flow_id_of(const echomq_flow *f, const char *name);

/* Enqueues the whole flow in one script call (one round trip), all or
 * nothing: jobs without children go to their lanes, the others wait for
 * their children. max_attempts: every job's (0 = the queue's default).
 * Checked before any I/O, each a clear message and nothing written: a
 * parent named but not in the flow (EINVAL), a cycle (EINVAL), a job of
 * another queue (EINVAL), more than ECHOMQ_FLOW_MAX jobs (ETOOLARGE), an
 * empty flow (EINVAL), names and payloads as echomq_enqueue. The ids are
 * then read with echomq_flow_id. Errors: those, EFULL (a lane's size cap),
 * ECONN, ETIMEOUT, EOOM, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_enqueue_flow(echomq_client *c, const char *queue, echomq_flow *f,
                                   uint32_t max_attempts);

/* A job's links in its flow, read at one moment: its parent (if one still
 * waits for it), and its children with what became of each. The children
 * of a job are listed while it waits for them or runs (they are freed at
 * its settlement). Owned by the caller: echomq_flow_info_free (NULL is
 * fine). The strings it returns live as long as it does. */
typedef struct echomq_flow_info echomq_flow_info;
/* Errors: EINVAL (id 0 or past ECHOMQ_ID_MAX), ENOTFOUND (no such job, and
 * no outcome of it kept), ECONN, ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. A job
 * in no flow has parent 0 and no children. */
ECHOMQ_API int echomq_flow_info_get(echomq_client *c, const char *queue, uint64_t id,
                                    echomq_flow_info **out);
ECHOMQ_API void echomq_flow_info_free(echomq_flow_info *fi);
/* The job's state (echomq_job_state; ECHOMQ_JOB_WAITING while it waits). */
ECHOMQ_API int echomq_flow_info_state(const echomq_flow_info *fi);
/* The parent that waits for it (0: none) and what that parent does if it
 * dies (echomq_flow_on_fail). */
ECHOMQ_API uint64_t echomq_flow_info_parent(const echomq_flow_info *fi);
ECHOMQ_API int echomq_flow_info_on_fail(const echomq_flow_info *fi);
/* Its children not finished yet (0 when it waits for none). */
ECHOMQ_API size_t echomq_flow_info_waiting(const echomq_flow_info *fi);
/* Its children listed, then child i's id, state (PENDING, LEASED, DELAYED,
 * WAITING, DEAD or COMPLETED), attempts, when it finished (server ms, 0 =
 * not yet), last error and result (with their lengths in *len, may be
 * NULL). Out of range: 0, or "" for the strings. */
ECHOMQ_API size_t echomq_flow_info_count(const echomq_flow_info *fi);
ECHOMQ_API uint64_t echomq_flow_info_child(const echomq_flow_info *fi, size_t i);
ECHOMQ_API int echomq_flow_info_child_state(const echomq_flow_info *fi, size_t i);
ECHOMQ_API uint64_t echomq_flow_info_child_attempts(const echomq_flow_info *fi, size_t i);
ECHOMQ_API int64_t echomq_flow_info_child_finished_at(const echomq_flow_info *fi, size_t i);
ECHOMQ_API const char *echomq_flow_info_child_error(const echomq_flow_info *fi, size_t i,
                                                    size_t *len);
ECHOMQ_API const char *echomq_flow_info_child_result(const echomq_flow_info *fi, size_t i,
                                                     size_t *len);

/* Deletes the whole unfinished flow job `id` belongs to: from the topmost
 * parent that still waits down to every job that has not finished (plain
 * echomq_delete refuses a job of such a flow with ECHOMQ_EDEPENDS). A job
 * in no flow is deleted as echomq_delete does. *deleted (may be NULL) gets
 * the jobs removed. Errors: EINVAL, ENOTFOUND, ELEASED (a job of the flow is
 * leased now: nothing deleted), ECONN, ETIMEOUT, ESERVER, ENOPERM, ELAYOUT.
 * To stop a flow with a job running, cancel its parent (echomq_cancel,
 * echomq/lifecycle.h): every job below it that has not run is canceled,
 * and the running ones when their holders next extend or settle. */
ECHOMQ_API int echomq_delete_flow(echomq_client *c, const char *queue, uint64_t id,
                                  uint64_t *deleted);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_FLOWS_H */
