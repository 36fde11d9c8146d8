/*
 * echomq/lanes.h — lane control: weight, limit, pause, rate, size cap, cost
 * mode, wait figures, and the queue-wide defaults of each.
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h.
 */
#ifndef ECHOMQ_LANES_H
#define ECHOMQ_LANES_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each call fixes ring membership at once and applies to the lane's
 * existing backlog. Configuring a lane that has no jobs yet works. Every
 * call takes a connected client handle (echomq/client.h), one thread at a
 * time, and records its status and message on it.
 * Errors (all): EINVAL (names, values: nothing sent), ECONN, ETIMEOUT
 * (unknown outcome), EOOM (server full: nothing written; not for the
 * echomq_get_* reads), ESERVER, ENOPERM, ELAYOUT. */

/* Throughput share per ring turn under wclaim: 1..ECHOMQ_WEIGHT_MAX. */
ECHOMQ_API int echomq_set_weight(echomq_client *c, const char *queue, const char *group,
                                 uint32_t weight);
/* Back to the queue default weight. */
ECHOMQ_API int echomq_clear_weight(echomq_client *c, const char *queue, const char *group);
/* Concurrency ceiling: at most `limit` leased jobs of the lane, 1..ECHOMQ_LIMIT_MAX. */
ECHOMQ_API int echomq_set_limit(echomq_client *c, const char *queue, const char *group,
                                uint32_t limit);
/* Back to the queue default limit (unlimited unless a default is set). */
ECHOMQ_API int echomq_clear_limit(echomq_client *c, const char *queue, const char *group);
/* A paused lane is never served and keeps its jobs. Idempotent. */
ECHOMQ_API int echomq_pause(echomq_client *c, const char *queue, const char *group);
ECHOMQ_API int echomq_resume(echomq_client *c, const char *queue, const char *group);

/* Queue-wide defaults for lanes without their own setting.
 * weight: 1..ECHOMQ_WEIGHT_MAX (1 is the plain rotation).
 * limit: 1..ECHOMQ_LIMIT_MAX, or 0 to clear (unlimited).
 * max_attempts: the attempt budget (1..ECHOMQ_ATTEMPTS_MAX) of jobs enqueued
 * with 0 from then on. */
ECHOMQ_API int echomq_set_default_weight(echomq_client *c, const char *queue, uint32_t weight);
ECHOMQ_API int echomq_set_default_limit(echomq_client *c, const char *queue, uint32_t limit);
ECHOMQ_API int echomq_set_default_max_attempts(echomq_client *c, const char *queue,
                                               uint32_t max_attempts);

/* Rate limit: at most `jobs` (1..ECHOMQ_RATE_JOBS_MAX) of the lane start per
 * period_ms (1..ECHOMQ_RATE_PERIOD_MAX_MS), in bursts of up to `burst` (0 =
 * jobs), on server time (a token bucket). A lane out of tokens leaves the
 * ring, so it costs claims nothing, and rejoins by itself when its next
 * token is due (any claim brings it back; blocked claimers wake for it).
 * Weights and limits compose with it: a turn serves min(weight, depth,
 * limit - active, tokens). */
ECHOMQ_API int echomq_set_rate(echomq_client *c, const char *queue, const char *group,
                               uint32_t jobs, int64_t period_ms, uint32_t burst);
ECHOMQ_API int echomq_clear_rate(echomq_client *c, const char *queue, const char *group);
/* Queue default for lanes without their own rate; jobs = 0 clears it. */
ECHOMQ_API int echomq_set_default_rate(echomq_client *c, const char *queue, uint32_t jobs,
                                       int64_t period_ms, uint32_t burst);
/* Throttle a lane by hand (a worker told to back off by a downstream
 * service): no job of the lane starts before server now + ms
 * (1..ECHOMQ_DELAY_MAX_MS); then it runs again (under its rate, if any). */
ECHOMQ_API int echomq_throttle(echomq_client *c, const char *queue, const char *group, int64_t ms);
/* Size cap: at most `cap` (1..ECHOMQ_CAP_MAX) jobs waiting in the lane
 * (pending + delayed; running jobs do not count). An enqueue that would
 * pass it is refused with ECHOMQ_EFULL and writes nothing; a batch is all or
 * nothing, so one full lane refuses the whole batch. */
ECHOMQ_API int echomq_set_cap(echomq_client *c, const char *queue, const char *group, uint64_t cap);
ECHOMQ_API int echomq_clear_cap(echomq_client *c, const char *queue, const char *group);
/* Queue default size cap for lanes without their own; 0 clears it. */
ECHOMQ_API int echomq_set_default_cap(echomq_client *c, const char *queue, uint64_t cap);

/* Cost mode (docs/architecture.md, "Fairness by work"): a turn counts work,
 * not jobs. Each lane is charged what its settled jobs cost, divided by its
 * weight; a lane more than `quantum` cost units past the least charged
 * lanes sits out, off the ring, until they catch up, then rejoins by
 * itself; a new or returning lane starts level (no banked credit). quantum
 * 1..ECHOMQ_ID_MAX in cost units (the worker engine measures µs of handler
 * time unless the handler reports its own units); 0 turns the mode off
 * (every lane back in the ring, every charge forgotten). A sharded queue
 * sets it on every shard queue. Errors: EINVAL, and those of any call. */
ECHOMQ_API int echomq_set_cost_mode(echomq_client *c, const char *queue, uint64_t quantum);
/* The queue's quantum into *quantum (0 = cost mode off). */
ECHOMQ_API int echomq_get_cost_mode(echomq_client *c, const char *queue, uint64_t *quantum);
/* Per-lane wait figures (docs/architecture.md, "Wait figures"), off by
 * default: with a window of `window_s` seconds (1..ECHOMQ_WAIT_WINDOW_MAX_S)
 * every claim records, per lane, the wait from enqueue to first delivery
 * and the deliveries (and, in cost mode, the cost charged), and
 * echomq_lane reports them over the last one to two windows: wait p50 and
 * p99, served share against fair share. 0 turns them off. Turning them off
 * or changing the window drops the figures so far. A sharded queue sets it
 * on every shard queue. Errors: EINVAL, and those of any call. */
ECHOMQ_API int echomq_set_wait_figures(echomq_client *c, const char *queue, uint32_t window_s);
/* The queue's window into *window_s (0 = wait figures off). */
ECHOMQ_API int echomq_get_wait_figures(echomq_client *c, const char *queue, uint32_t *window_s);
/* Charge lane `group` `cost` units of work done (the plain client's way to
 * report what a settled job cost; 0 charges nothing). Ignored unless the
 * queue is in cost mode. One round trip; a lost connection is reported and
 * the charge is not sent again (an unknown outcome is never retried). */
ECHOMQ_API int echomq_charge(echomq_client *c, const char *queue, const char *group, uint64_t cost);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_LANES_H */
