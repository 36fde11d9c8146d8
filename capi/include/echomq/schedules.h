/*
 * echomq/schedules.h — periodic jobs: named schedules of a queue, fired by
 * the claims workers make anyway (no scheduler process). Part of the C API
 * (include <echomq/echomq.h>, which includes this header); the conventions
 * of echomq.h hold here too: statuses, the client's error message, one
 * thread at a time per client handle, input checked before any I/O.
 *
 * A schedule names a lane and a payload, and ticks either every N ms or on
 * a cron expression in a time zone. Each tick is promoted by the first claim
 * call (echomq_claim, a batch, a blocking claim, a worker engine) made on the
 * queue at or after its time: that call enqueues the tick's job on the lane,
 * where it takes its turn in the ring like any job, and moves the schedule
 * on to its next tick, in one script. So each tick makes one job, however
 * many processes claim. A worker engine with nothing to do sleeps on the
 * server until the next tick at most. Times are the server's clock.
 * docs/operations.md ("Periodic jobs") states the guarantees: failover,
 * clock steps, daylight-saving time.
 */
#ifndef ECHOMQ_SCHEDULES_H
#define ECHOMQ_SCHEDULES_H

#include <stddef.h>
#include <stdint.h>

/* The statuses, the limits, the export macro and the handle types. */
#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Limits. */

/* A schedule name: 1..128 bytes of [A-Za-z0-9_.:-]. */
#define ECHOMQ_SCHEDULE_NAME_MAX 128
/* every_ms: 1..366 days. */
#define ECHOMQ_SCHEDULE_EVERY_MAX_MS (366LL * 24 * 3600 * 1000)
/* A cron expression: at most this many bytes. */
#define ECHOMQ_SCHEDULE_CRON_MAX 256
/* A zone name: at most this many bytes. */
#define ECHOMQ_SCHEDULE_ZONE_MAX 64
/* Schedules fired by one claim call at most (more wait for the next call,
 * which the client makes at once: "more due now"). */
#define ECHOMQ_SCHEDULE_FIRE_MAX 16
/* echomq_schedule_next: ticks at most. */
#define ECHOMQ_SCHEDULE_NEXT_MAX 1000
/* echomq_schedules: schedules in one page at most. */
#define ECHOMQ_SCHEDULE_LIST_MAX 10000
/* The grace of ECHOMQ_MISSED_SKIP when grace_ms is 0. */
#define ECHOMQ_SCHEDULE_GRACE_DEFAULT_MS 1000

/* What happens to ticks nobody claimed in time (no worker ran, or the
 * workers were down): the ticks due by the time a claim comes are handled
 * together, and only the latest of them may fire. */
typedef enum echomq_missed {
  /* The latest due tick fires once, however late; the earlier ones are
   * skipped (counted in `skips`). The default. */
  ECHOMQ_MISSED_FIRE_ONCE = 0,
  /* The latest due tick fires only while at most grace_ms late; else it is
   * skipped too, and the schedule waits for its next tick. */
  ECHOMQ_MISSED_SKIP = 1
} echomq_missed;

/* What happens to a tick while the previous tick's job still waits or runs
 * (pending, leased, or delayed for a retry). */
typedef enum echomq_overlap {
  ECHOMQ_OVERLAP_FIRE = 0, /* fire anyway (the default) */
  ECHOMQ_OVERLAP_SKIP = 1  /* skip the tick (counted in `skips`) */
} echomq_overlap;

/* ------------------------------------------------------------------------ */
/* A schedule's spec. */

typedef struct echomq_schedule_options {
  unsigned int version;   /* ECHOMQ_SCHEDULE_OPTIONS_VERSION */
  /* The timing: exactly one of every_ms and cron. */
  int64_t every_ms;       /* a tick every every_ms (1..ECHOMQ_SCHEDULE_EVERY_MAX_MS):
                             the first at start_at_ms, or without one
                             every_ms after the schedule was created */
  const char *cron;       /* NULL, or a cron expression: 5 fields "min hour
                             day-of-month month day-of-week", or 6 with
                             seconds first; each '*', a value, a range a-b,
                             a step (*, a-b or a, then /n) or a comma list
                             of those; months JAN..DEC and days SUN..SAT by
                             name too, day-of-week 0..7 (0 and 7: Sunday);
                             day-of-month and day-of-week restrict together
                             (either matches) unless one starts with '*'.
                             Or @yearly, @annually, @monthly, @weekly,
                             @daily, @midnight, @hourly. */
  const char *zone;       /* the zone cron is read in: NULL or "UTC" (the
                             default), a fixed offset ("+05:30", "-03",
                             "UTC+01:00"), or an IANA name
                             ("Europe/Paris", read from the system's
                             zoneinfo at upsert). Ignored with every_ms. */
  /* The job of each tick. */
  const char *lane;       /* its lane (a group, or a tenant's lane "T/L"); required */
  const char *payload;    /* its payload (may be NULL with payload_len 0); copied */
  size_t payload_len;
  uint32_t max_attempts;  /* 0 = the queue's default when the tick fires */
  int64_t keep_ms;        /* its retention (as echomq_enqueue_options) */
  uint64_t keep_last;
  uint64_t cost_estimate; /* as echomq_enqueue_options.cost_estimate */
  /* Its life. */
  int64_t start_at_ms;    /* server ms: no tick before it (0 = none) */
  int64_t end_at_ms;      /* server ms: no tick after it (0 = none); after
                             start_at_ms */
  uint64_t limit;         /* it ends after this many fired ticks (0 = none) */
  int missed;             /* ECHOMQ_MISSED_FIRE_ONCE or ECHOMQ_MISSED_SKIP */
  int64_t grace_ms;       /* ECHOMQ_MISSED_SKIP: how late a tick may fire
                             (0 = ECHOMQ_SCHEDULE_GRACE_DEFAULT_MS;
                             at most ECHOMQ_DELAY_MAX_MS) */
  int overlap;            /* ECHOMQ_OVERLAP_FIRE or ECHOMQ_OVERLAP_SKIP */
} echomq_schedule_options;

#define ECHOMQ_SCHEDULE_OPTIONS_VERSION 1
#define ECHOMQ_SCHEDULE_OPTIONS_INIT \
  { ECHOMQ_SCHEDULE_OPTIONS_VERSION, 0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
/* Fills *opts with the defaults of `version`. Errors: EINVAL (NULL, an
 * unknown version). */
ECHOMQ_API int echomq_schedule_options_init(echomq_schedule_options *opts, unsigned int version);

/* What an upsert did (*changed of echomq_schedule_upsert). */
#define ECHOMQ_SCHEDULE_UNCHANGED 0 /* the same spec was there: nothing changed */
#define ECHOMQ_SCHEDULE_CREATED 1
#define ECHOMQ_SCHEDULE_UPDATED 2   /* its spec changed */

/* Create schedule `name` of the queue, or change it. Idempotent: the same
 * name with the same spec changes nothing (so every process may upsert its
 * schedules at boot: one schedule, its next tick untouched). A changed
 * timing (every_ms, cron, zone, start_at_ms) re-arms it at its first tick
 * from now on; any other change (the job's lane, payload or options, the
 * end, the limit, the policies) keeps its next tick. A tick at or before
 * the latest tick it handled never fires again. A paused schedule stays
 * paused. A named zone's rules are read now, for about the next ten years
 * (upsert again to refresh them; past them its last offset holds).
 * *changed (may be NULL): ECHOMQ_SCHEDULE_UNCHANGED, _CREATED or _UPDATED;
 * *next_at_ms (may be NULL): its next tick (server ms; 0 when paused and
 * never armed, or ended).
 * Errors: EINVAL before any I/O — a bad queue or schedule name, neither or
 * both of every_ms and cron, every_ms out of range, a bad cron expression
 * (the message names the field), an unknown or malformed zone, no lane or
 * a bad lane name, a payload over the client's limit (ETOOLARGE), options
 * out of range, an end not after its start, an unknown options version;
 * EINVAL from the server, with nothing written: a spec that never fires
 * from now on (a cron date that never comes, an end already past); ECONN,
 * ETIMEOUT (unknown outcome: upsert again), EOOM, ESERVER, ENOPERM,
 * ELAYOUT. A sharded queue keeps a schedule in the shard queue of its lane
 * (a changed lane moves it). */
ECHOMQ_API int echomq_schedule_upsert(echomq_client *c, const char *queue, const char *name,
                                      const echomq_schedule_options *opts, int *changed,
                                      int64_t *next_at_ms);

/* Remove schedule `name`; the jobs it made stay. Errors: EINVAL (names),
 * ENOTFOUND (no such schedule), ECONN, ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_schedule_remove(echomq_client *c, const char *queue, const char *name);

/* Pause schedule `name` (its ticks do not fire while paused; none is
 * counted as skipped), or resume it: it is armed at its first tick after
 * now. Pausing a paused schedule, or resuming a running one, changes
 * nothing. Errors: as echomq_schedule_remove. */
ECHOMQ_API int echomq_schedule_pause(echomq_client *c, const char *queue, const char *name);
ECHOMQ_API int echomq_schedule_resume(echomq_client *c, const char *queue, const char *name);

/* ------------------------------------------------------------------------ */
/* Reading schedules. */

/* One schedule as read: its spec and its state. Strings and the payload are
 * owned by the list the info came from; `version` tells the fields a
 * caller may read (later versions only add fields at the end). */
typedef struct echomq_schedule_info {
  unsigned int version;     /* ECHOMQ_SCHEDULE_INFO_VERSION */
  const char *name;
  int64_t every_ms;         /* 0 for a cron schedule */
  const char *cron;         /* as written ("" for every_ms) */
  const char *zone;         /* as given ("" for every_ms) */
  const char *lane;
  const char *payload;
  size_t payload_len;
  uint32_t max_attempts;
  int64_t keep_ms;
  uint64_t keep_last;
  uint64_t cost_estimate;
  int64_t start_at_ms;
  int64_t end_at_ms;
  uint64_t limit;
  int missed;
  int64_t grace_ms;
  int overlap;
  /* State. */
  int paused;               /* 1 while paused */
  const char *ended;        /* "" while it may fire; "limit" or "end" once it
                               fired its limit or passed its end */
  int64_t next_at_ms;       /* its next tick (0 when ended) */
  int64_t last_tick_ms;     /* the latest tick it handled, fired or skipped (0 none) */
  int64_t fired_tick_ms;    /* the latest tick it fired (0 none) */
  int64_t fired_at_ms;      /* when that tick fired (server ms; its lateness:
                               fired_at_ms - fired_tick_ms) */
  uint64_t fired_job;       /* that tick's job id (0 none) */
  int fired_state;          /* where that job is now: an echomq_job_state,
                               or 0 when it is gone (acked and not retained,
                               or deleted) */
  uint64_t runs;            /* ticks fired */
  uint64_t skips;           /* ticks skipped (missed, late, overlapping,
                               lane full, or already fired) */
  int64_t created_at_ms;
  int64_t updated_at_ms;
} echomq_schedule_info;

#define ECHOMQ_SCHEDULE_INFO_VERSION 1

/* A page of schedules, by name in byte order. */
typedef struct echomq_schedule_list echomq_schedule_list;
ECHOMQ_API size_t echomq_schedule_list_count(const echomq_schedule_list *l);
/* Borrowed pointer, NULL if i is out of range. */
ECHOMQ_API const echomq_schedule_info *echomq_schedule_list_at(const echomq_schedule_list *l, size_t i);
/* The name to pass as `after` for the next page, or NULL when this page is
 * the last. Owned by the list. */
ECHOMQ_API const char *echomq_schedule_list_next(const echomq_schedule_list *l);
ECHOMQ_API void echomq_schedule_list_free(echomq_schedule_list *l);

/* Up to `count` (1..ECHOMQ_SCHEDULE_LIST_MAX) schedules named after `after`
 * (NULL or "" = from the first). *out is freed with
 * echomq_schedule_list_free. Errors: EINVAL, ECONN, ETIMEOUT, ESERVER,
 * ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_schedules(echomq_client *c, const char *queue, const char *after,
                                size_t count, echomq_schedule_list **out);

/* Schedule `name` alone: a list of one. Errors: EINVAL, ENOTFOUND, ECONN,
 * ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_schedule_get(echomq_client *c, const char *queue, const char *name,
                                   echomq_schedule_list **out);

/* The next n (1..ECHOMQ_SCHEDULE_NEXT_MAX) ticks of schedule `name` (server
 * ms), computed by the server as a claim will: from its next tick, or for a
 * paused schedule from when a resume now would arm it. Fewer past its end
 * or its limit, none once it ended. times: room for n; *count (may be NULL)
 * receives how many were written. Errors: EINVAL, ENOTFOUND, ECONN,
 * ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_schedule_next(echomq_client *c, const char *queue, const char *name, size_t n,
                                    int64_t *times, size_t *count);

/* ------------------------------------------------------------------------ */
/* The job of a tick. */

/* For a job looked up with echomq_get_job: the schedule whose tick made it
 * ("" for any other job, and on claimed jobs) and that tick's time (server
 * ms; 0). Owned by the job handle. A tick's job also carries the
 * idempotency key "sched:<name>:<tick ms>" for the queue's window, so an
 * enqueue with that key is a duplicate of it. */
ECHOMQ_API const char *echomq_job_schedule(const echomq_job *j, size_t *len);
ECHOMQ_API int64_t echomq_job_tick_ms(const echomq_job *j);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_SCHEDULES_H */
