/*
 * echomq.h — the stable C API of libechomq: fair lanes for job queues over
 * Valkey. Include this one header; it includes every topic header.
 *
 * This is the one boundary every binding builds on. It is plain C99, includes
 * no C++ and no hiredis header, and no C++ exception ever crosses it. Each
 * topic header stands on its own and documents ownership, thread safety
 * and the errors of each of its calls:
 *
 *   echomq/common.h    conventions, version, status codes, every limit, the
 *                      retry sentinels, job states, the handle types
 *   echomq/client.h    the client handle: options, connect, errors, cancel
 *   echomq/job.h       job handles and job lists
 *   echomq/queue.h     enqueue (one job, batches), claim, settle, batches
 *   echomq/worker.h    the worker engine (the one worker loop)
 *   echomq/lanes.h     lane control: weight, limit, pause, rate, size cap,
 *                      cost mode, wait figures, queue-wide defaults
 *   echomq/outcomes.h  retention, results, progress, waiting for a job, events
 *   echomq/inspect.h   stats, lanes, dead letters, reports, verify, repair
 *   echomq/ops.h       jobs by id, purge, queues, sharded queues, doctor
 *   echomq/schedules.h periodic jobs: schedules fired by claims
 *   echomq/lifecycle.h cancel, time limits, start deadlines, queue-wide
 *                      ceiling and rate, lane limits that burst
 */
#ifndef ECHOMQ_ECHOMQ_H
#define ECHOMQ_ECHOMQ_H

#include "common.h"
#include "client.h"
#include "job.h"
#include "queue.h"
#include "worker.h"
#include "lanes.h"
#include "outcomes.h"
#include "inspect.h"
#include "ops.h"
#include "schedules.h"
#include "flows.h"
#include "lifecycle.h"

#endif /* ECHOMQ_ECHOMQ_H */
