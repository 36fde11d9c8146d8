/*
 * echomq/inspect.h — inspection and mending: figures, lanes, dead letters, verify, repair.
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h.
 */
#ifndef ECHOMQ_INSPECT_H
#define ECHOMQ_INSPECT_H

#include "common.h"
#include "job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Looking at a queue, and mending it. echomq_stats, _lane, _lanes, _dead
 * and _verify run read-only scripts (EVALSHA_RO): they work on a replica,
 * under CLIENT PAUSE WRITE and for a user with read-only key permissions
 * (see docs/operations.md for the ACLs); echomq_repair reads too unless
 * it applies its changes, and echomq_redrive writes. Every call takes a
 * connected client handle (echomq/client.h), one thread at a time, and
 * records its status and message on it.
 *
 * ---- Figures ---- */

typedef struct echomq_queue_stats {
  unsigned int version;     /* set to ECHOMQ_QUEUE_STATS_VERSION before the call */
  uint64_t lanes;           /* lanes known: with live jobs or with settings
                               (0.5.0: a tenant's own entry "T/" is not a lane) */
  uint64_t ring;            /* lanes serviceable now (the ring's length: plain
                               lanes and tenants, docs/keys.md "Tenants") */
  uint64_t pending;         /* jobs waiting in lanes */
  uint64_t leased;          /* jobs under lease */
  uint64_t delayed;         /* jobs waiting for a due time */
  uint64_t dead;            /* dead-lettered jobs */
  uint64_t paused;          /* paused lanes and paused tenants */
  uint64_t enqueued_total;  /* counters since the queue was created */
  uint64_t claimed_total;   /* deliveries (= served) */
  uint64_t acked_total;
  uint64_t failed_total;    /* fail calls and expired leases */
  uint64_t dead_total;
  uint32_t default_weight;
  uint32_t default_limit;   /* 0 = unlimited */
  uint32_t default_max_attempts;
  int64_t server_time_ms;
  /* Version 2 (0.5.0). */
  uint64_t tenants;         /* tenants with a lane or a setting listed */
  /* Version 3 (0.5.0; echomq/lifecycle.h). */
  uint64_t canceled_total;  /* jobs canceled (echomq_cancel) */
  uint64_t expired_total;   /* jobs whose start deadline passed */
  uint64_t bursting;        /* lanes and tenants in the burst ring now */
} echomq_queue_stats;

#define ECHOMQ_QUEUE_STATS_VERSION_1 1
#define ECHOMQ_QUEUE_STATS_VERSION_2 2
#define ECHOMQ_QUEUE_STATS_VERSION 3

/* Errors: EINVAL (names, version), ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_stats(echomq_client *c, const char *queue, echomq_queue_stats *out);

typedef struct echomq_lane_info {
  unsigned int version;         /* ECHOMQ_LANE_INFO_VERSION */
  char group[ECHOMQ_GROUP_NAME_MAX + 1];
  uint64_t depth;               /* pending jobs */
  uint64_t active;              /* leased jobs */
  uint32_t limit;               /* effective ceiling, 0 = unlimited */
  uint32_t weight;              /* effective weight */
  int limit_is_default;         /* 1 if limit comes from the queue default */
  int weight_is_default;
  int paused;
  int serviceable;              /* in the ring now */
  uint64_t served;              /* deliveries from this lane */
  int64_t oldest_enqueued_at_ms;/* enqueue time of the head job, 0 if empty */
  int known;                    /* 1 if the lane has live jobs or settings of its own */
  uint64_t delayed;             /* jobs of the lane waiting for a due time */
  /* Version 2 (0.2.0). */
  uint32_t rate_jobs;           /* effective rate limit: rate_jobs per
                                   rate_period_ms, bursts of rate_burst; 0 = none */
  int64_t rate_period_ms;
  uint32_t rate_burst;
  int rate_is_default;          /* 1 if the rate comes from the queue default */
  double tokens;                /* tokens now (jobs it may start), -1 without a rate */
  int64_t next_token_at_ms;     /* server ms when it may next be served (out of
                                   tokens, or throttled by hand); 0 = now */
  uint64_t cap;                 /* effective size cap (pending + delayed), 0 = none */
  int cap_is_default;
  /* Version 3 (0.4.0). Tenants (docs/architecture.md, "Lanes inside
   * tenants"): a row named "T/" is tenant T's own row, its figures those
   * of all its lanes; a lane "T/L" belongs to tenant T. */
  char tenant[ECHOMQ_GROUP_NAME_MAX + 1]; /* T, for a lane of tenant T and for
                                   T's own row; "" for a lane of no tenant */
  int is_tenant;                /* 1 if this row is tenant T's own ("T/"): its depth
                                   then counts its lanes' waiting jobs (pending
                                   and delayed), and delayed is 0 */
  /* Wait figures (echomq_set_wait_figures; docs/architecture.md, "Wait
   * figures"), over the last one to two windows; while they are off:
   * wait_samples and window_claims 0, the doubles -1. */
  uint64_t wait_samples;        /* first deliveries (attempt 1) in the window */
  double wait_p50_ms;           /* wait from enqueue (a delayed job: its delay
                                   included) to first delivery, median, in ms:
                                   the upper edge of its sqrt(2)-wide bucket
                                   (at most 41% above the true figure); -1 = none */
  double wait_p99_ms;           /* the same, 99th percentile; -1 = none */
  uint64_t window_claims;       /* deliveries (every attempt) in the window */
  double share;                 /* its part (0..1) of the queue's deliveries
                                   in the window (of the cost charged, in cost
                                   mode); -1 = none in the window */
  double fair_share;            /* the part its weight entitles it to among
                                   the rows served in the window; -1 = none */
  /* Cost mode (echomq_set_cost_mode). A lane of a tenant is charged to the
   * tenant's row. */
  double cost_v;                /* cost charged / weight (the ring's v), -1 = none */
  int sits_out;                 /* 1 while over its share, off the ring */
  /* Version 4 (0.5.0; echomq_set_limit_burst, echomq/lifecycle.h). */
  uint32_t burst;               /* its burst ceiling, 0 = none */
  int bursting;                 /* 1 while at or above its limit, below its
                                   burst, waiting in the burst ring */
} echomq_lane_info;

/* 4 in 0.5.0, 3 since 0.4.0; a caller built against version 3 passes 3
 * and gets the fields up to `sits_out`, one built against version 2 passes
 * 2 and gets the fields up to `cap_is_default`, one built against version
 * 1 passes 1 and gets the fields up to `delayed` only. */
#define ECHOMQ_LANE_INFO_VERSION 4
#define ECHOMQ_LANE_INFO_VERSION_3 3
#define ECHOMQ_LANE_INFO_VERSION_2 2
#define ECHOMQ_LANE_INFO_VERSION_1 1

/* One lane in detail. A lane that is unknown reports zeros (and defaults)
 * with ECHOMQ_OK: lanes exist implicitly. out->version: ECHOMQ_LANE_INFO_VERSION
 * (or 1: the version-1 fields only). Errors: EINVAL, ECONN, ETIMEOUT, ESERVER,
 * ENOPERM. */
ECHOMQ_API int echomq_lane(echomq_client *c, const char *queue, const char *group,
                           echomq_lane_info *out);

/* A page of lanes, in byte order of their names: the caller's, freed with
 * echomq_lane_list_free; the entries and the cursor are owned by it. */
ECHOMQ_API size_t echomq_lane_list_count(const echomq_lane_list *l);
ECHOMQ_API const echomq_lane_info *echomq_lane_list_at(const echomq_lane_list *l, size_t i);
/* Cursor for the next page: the last group of this page, or NULL when this
 * page is the last. Owned by the list. */
ECHOMQ_API const char *echomq_lane_list_next(const echomq_lane_list *l);
ECHOMQ_API void echomq_lane_list_free(echomq_lane_list *l);

/* List up to `count` (1..ECHOMQ_PAGE_MAX) lanes whose names sort after `after` (NULL or
 * "" = from the start). Pages are bounded work on the server, so a queue of a
 * million lanes is walked page by page. Errors: EINVAL, ECONN, ETIMEOUT, ESERVER,
 * ENOPERM. */
ECHOMQ_API int echomq_lanes(echomq_client *c, const char *queue, const char *after,
                            size_t count, echomq_lane_list **out);

/* ---- Dead letters ---- */

/* Dead-lettered jobs, oldest death first, `count` (1..ECHOMQ_PAGE_MAX) from
 * `offset`. *out is the caller's (echomq_job_list_free). Errors: EINVAL,
 * ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_dead(echomq_client *c, const char *queue, uint64_t offset,
                           size_t count, echomq_job_list **out);

/* Move dead jobs back to their lanes with a fresh attempt budget (their
 * next delivery's fencing token is still greater than every earlier one).
 * ids: n (1..ECHOMQ_PAGE_MAX) job ids; ids that are not dead are skipped.
 * *redriven (may be NULL) receives how many moved. A writing call. Errors: EINVAL, ECONN, ETIMEOUT, EOOM, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_redrive(echomq_client *c, const char *queue, const uint64_t *ids,
                              size_t n, uint64_t *redriven);
/* Redrive every dead job (in bounded chunks, several round trips).
 * Errors: as echomq_redrive. */
ECHOMQ_API int echomq_redrive_all(echomq_client *c, const char *queue, uint64_t *redriven);

/* ---- Reports ----
 * A report is lines of text (verify, repair, queues, shards, doctor): plain
 * data, the caller's, freed with echomq_report_free. Its strings are owned
 * by it. Count and lines of a report (NULL for an index out of range). */
ECHOMQ_API size_t echomq_report_count(const echomq_report *r);
ECHOMQ_API const char *echomq_report_at(const echomq_report *r, size_t i);
ECHOMQ_API void echomq_report_free(echomq_report *r);

/* ---- Verify and repair ---- */

/* Check invariants I1-I3 (ring = serviceable lanes, each once; gactive =
 * leased jobs per lane; every job in exactly one place)
 * and the queue counters. ECHOMQ_OK with *out holding one line per
 * violation (count 0 = healthy). Runs one script over the whole queue: an
 * operator's call, O(jobs + lanes). Errors: EINVAL, ECONN, ETIMEOUT, ESERVER,
 * ENOPERM. */
ECHOMQ_API int echomq_verify(echomq_client *c, const char *queue, echomq_report **out);

/* Repair (0.3.0): rebuild what the scripts keep beside the jobs from where
 * the jobs really are. The lane pending sets, leases, delayed, dead and the
 * job records are the truth; the ring, the active counts (gactive), the
 * live counts (glive), the lane directory, the throttled schedule and the
 * counters are set to match them, and first every job is put in exactly one
 * place (an id without a record leaves; a job in two places keeps the first
 * of leases, its lane, delayed, dead; a record in no place goes back to its
 * lane; the delivery state of no job goes, and one naming another lane
 * than its record gets the record's). A negative active count (an
 * underflow) is reported and set right, never hidden. Counters only rise.
 *
 * One call is one bounded step: about `count` (1..ECHOMQ_BATCH_MAX) items
 * of the walk, but a lane's pending set is read whole. cursor: NULL or ""
 * to start, else echomq_report_cursor() of the previous step's report;
 * call again until that is NULL. *out receives one line per change, e.g.
 * "ring: lane g added (3 pending, not in the ring)" (free with
 * echomq_report_free). apply = 0 is a dry run: a read-only script reports
 * the changes and writes nothing (works on a replica and for a read-only
 * user); apply = 1 makes them. Run it on a quiet queue (workers stopped):
 * the leased and delayed jobs are counted across steps, so a job moving
 * between steps can make a count wrong (run echomq_verify after; a step
 * that finishes the walk is atomic). Thread safety: as any call on `c`.
 * Errors: EINVAL (names, count, a cursor not from a repair), ECONN,
 * ETIMEOUT, ELAYOUT, ESERVER, ENOPERM, EOOM (apply), and UNCONFIRMED (apply,
 * with durability waits: the step was made but not confirmed durable). */
ECHOMQ_API int echomq_repair(echomq_client *c, const char *queue, int apply, const char *cursor,
                             size_t count, echomq_report **out);
/* The cursor for the next repair step, NULL when the repair is done (and
 * for reports of other calls). Owned by the report. */
ECHOMQ_API const char *echomq_report_cursor(const echomq_report *r);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_INSPECT_H */
