/*
 * echomq/ops.h — operations: jobs by id, purging lanes, listing queues, sharded queues, doctor.
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h.
 */
#ifndef ECHOMQ_OPS_H
#define ECHOMQ_OPS_H

#include "common.h"
#include "job.h"
#include "inspect.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operating a queue: a job by its id, purging a lane, the queues of a
 * server, sharded queues, and the doctor's checks (0.3). Every call takes a
 * connected client handle (echomq/client.h), one thread at a time, and
 * records its status and message on it.
 *
 * ---- Jobs and lanes ---- */

/* Look a job up by id (read-only, EVALSHA_RO): its state
 * (echomq_job_state_of), lane, payload, the fencing token of its latest
 * delivery (echomq_job_token; 0 if never delivered), the attempt of its
 * budget (echomq_job_attempt) and the budget (echomq_job_max_attempts),
 * enqueue time, lease deadline / due time / time of death, and last error; since 0.4 also the
 * first-started and finished times, progress, and for a retained completed
 * job (ECHOMQ_JOB_COMPLETED, no payload) its result. *out is freed with
 * echomq_job_free. Errors: EINVAL (queue, id 0, NULL out), ENOTFOUND (no
 * such job: acked and not retained, deleted, or never existed), ECONN,
 * ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_get_job(echomq_client *c, const char *queue, uint64_t id, echomq_job **out);

/* Delete a job that is pending, delayed, dead or completed (a retained
 * outcome, 0.4): it is gone, its lane's counts and ring place are fixed. A leased job is refused with
 * ECHOMQ_ELEASED (settle or let it expire first). Errors: EINVAL, ENOTFOUND,
 * ELEASED, ECONN, ETIMEOUT (unknown outcome), EOOM, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_delete_job(echomq_client *c, const char *queue, uint64_t id);

/* Purge lane `group`: delete its waiting jobs (pending and delayed; leased
 * jobs run on, dead jobs stay in the dead list) and forget its retained
 * completed jobs (0.4.0, echomq_set_retention), in bounded steps: one call
 * removes up to `max` (1..ECHOMQ_PURGE_MAX) pending jobs or looks at up to
 * `max` delayed or retained jobs of the queue (*removed counts both).
 * *cursor is 0 on the first call and is updated; *more (may be NULL) is 1 while work remains: call again with the
 * same cursor until it is 0. *removed (may be NULL) receives how many jobs
 * this call deleted. With clear_settings = 1, the call that finishes also
 * clears the lane's own weight, limit, rate, size cap and pause; with 0
 * they stay.
 * Jobs enqueued while a purge runs may survive it.
 * Errors: EINVAL, ECONN, ETIMEOUT, EOOM, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_purge_lane(echomq_client *c, const char *queue, const char *group,
                                 uint32_t max, int clear_settings, uint64_t *cursor,
                                 uint64_t *removed, int *more);
/* Purge the whole lane, looping over echomq_purge_lane (several round
 * trips). *removed (may be NULL) receives the total. Errors: as
 * echomq_purge_lane. */
ECHOMQ_API int echomq_purge_lane_all(echomq_client *c, const char *queue, const char *group,
                                     int clear_settings, uint64_t *removed);

/* The queues on the server the client is connected to, in byte order, as a
 * report (one name per line). Walks the keyspace with SCAN (MATCH
 * "emq:{*}:config"): no registry to keep, bounded work per round trip,
 * O(keys) in all: an operator's call. A queue is listed once it was first
 * enqueued to. In a cluster it walks every primary of the slot map (0.3.0;
 * the user needs CLUSTER SLOTS). A sharded queue is listed by its own name,
 * its shard queues are not. *out is the caller's: free it with
 * echomq_report_free. Errors: EINVAL (NULL out), ECONN,
 * ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_queues(echomq_client *c, echomq_report **out);

/* ---- Sharded queues ----
 * Sharded queues (0.3.0): one queue over N shard queues, so that one hot
 * queue can use every primary of a Valkey Cluster (docs/operations.md,
 * "Sharded queues").
 *
 * A sharded queue is opened by its name like any queue: every call above
 * reads the queue's record once (then caches it per client) and routes.
 * A lane lives in the shard its group hashes to (FNV-1a of the group's
 * bytes mod N), so a lane's order, weight, limit, pause, rate and size cap
 * stay per lane and every script runs in one slot. Claims rotate over the
 * shards, one step per claim, skipping shards with nothing to give; a
 * batch claim serves n turns of one shard's ring. Job ids carry their
 * shard (id = shard's own id * N + shard index), so ack, fail, extend,
 * get, delete and redrive take them as they are. stats and lanes are
 * summed and merged over the shards, verify and repair walk them all
 * (their lines start with the shard queue's name), queue defaults are set
 * on every shard. Differences from a plain queue: an enqueue batch is
 * atomic per shard, not as a whole (an error after the first shard says
 * how many jobs went in); an idempotency key is remembered in its group's
 * shard; a waiting claim sleeps on one shard at a time in slices of 50 ms;
 * the dead list pages to a depth of 10,000 jobs. In a cluster the client
 * reads the slot map (CLUSTER SLOTS), keeps one connection per primary,
 * refreshes the map after a MOVED and retries TRYAGAIN for about a second;
 * a user without +cluster|slots gets one connection that follows MOVED.
 *
 * Creates queue `queue` as a sharded queue over `shards` shard queues
 * (1..ECHOMQ_SHARDS_MAX) named "<queue>.s<i>-<tag>", the tags chosen so
 * that shard i lands on primary i mod M (M primaries, in slot order), or
 * opens it when it exists with that count. The queue name must leave room
 * for the suffix (ECHOMQ_QUEUE_NAME_MAX). Safe to call from every process.
 * Errors: EINVAL, ESHARDS (sharded with another count, or a plain queue
 * that holds jobs or lane settings: nothing changed), ECONN, ETIMEOUT,
 * EOOM, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_shards_create(echomq_client *c, const char *queue, uint32_t shards);
/* The shard queues of `queue`, in shard order, one name per line (read
 * again from the server); an empty report for a plain queue. *out is the
 * caller's: free it with echomq_report_free. Errors: EINVAL, ECONN,
 * ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_shards(echomq_client *c, const char *queue, echomq_report **out);

/* ---- Doctor: checks of the server a queue runs on ---- */

/* How a doctor line rates what it found. */
typedef enum echomq_doctor_level {
  ECHOMQ_DOCTOR_OK = 0,    /* fine as it is */
  ECHOMQ_DOCTOR_WARN = 1,  /* works, but follow the advice */
  ECHOMQ_DOCTOR_FAIL = 2   /* the queue cannot work properly like this */
} echomq_doctor_level;

/* Check the server that queue `queue` runs on and advise, one report line
 * per check, each "<ok|warn|fail> <check>: <finding>; <advice>":
 * - version: warn below Valkey 8.0.6 / 8.1.4, the first releases with the
 *   2025 Lua sandbox fixes (CVE-2025-49844, -46817, -46818, -46819); fail
 *   below 7.2;
 * - memory: warn unless maxmemory-policy is noeviction;
 * - persistence: AOF, RDB snapshots or none (CONFIG GET when allowed);
 * - replicas: warn with none connected, or when this server is a replica;
 * - cluster: standalone, or the queue's slot;
 * - acl: which operations (enqueue; claim and settle; read; lane settings
 *   and redrive) user `acl_user` (NULL = the connected user) may run on
 *   this queue, by ACL DRYRUN of every command their scripts call; warn when
 *   the connection may not run ACL DRYRUN, fail when the user may run none.
 * Reads only (INFO, CONFIG GET, COMMAND INFO, ACL WHOAMI, ACL DRYRUN).
 * *out receives the lines (free with echomq_report_free), *worst (may be
 * NULL) the worst echomq_doctor_level among them.
 * Errors: EINVAL (queue, empty acl_user, NULL out), ECONN, ETIMEOUT,
 * ENOPERM (INFO refused), ESERVER. */
ECHOMQ_API int echomq_doctor(echomq_client *c, const char *queue, const char *acl_user,
                             echomq_report **out, int *worst);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_OPS_H */
