/*
 * echomq/common.h — what every topic header of libechomq shares: the
 * version, the export macro, the status codes, every limit, the retry
 * sentinels, the numbers the server's scripts return, and the handle types.
 * Included by every other header; include <echomq/echomq.h> for the whole API.
 *
 * Conventions (every topic header follows them)
 * - Every call returns an `int` status from `echomq_status` (0 = ECHOMQ_OK),
 *   unless its comment says otherwise. On failure the client handle keeps a
 *   message for the last call: echomq_client_errmsg(c), or copied out with
 *   echomq_client_last_error(c, buf, cap), the shape of
 *   echomq_worker_last_error(w, buf, cap).
 * - Handles are opaque. Constructors write to an `**out` and return a status;
 *   every `*_free` accepts NULL. Whatever the library allocates, the caller
 *   frees with the matching `*_free`.
 * - Strings returned by accessors are owned by the handle they came from and
 *   stay valid until that handle is freed. Byte strings come as pointer plus
 *   length: payloads are binary and may contain NUL.
 * - Times are milliseconds. Absolute times (lease deadlines, enqueue times)
 *   are the Valkey server's clock (ms since the Unix epoch), never the client's.
 * - Option structs begin with `unsigned int version`; initialise them with the
 *   `..._INIT` macro or the `..._init()` function. NULL means defaults. Fields
 *   are only ever added at the end; a caller built against an older version
 *   passes that version's number and keeps working.
 * - Input is validated before any network I/O: a call refused with
 *   ECHOMQ_EINVAL or ECHOMQ_ETOOLARGE has sent nothing and changed nothing.
 *
 * Names
 * - queue: 1..ECHOMQ_QUEUE_NAME_MAX bytes of [A-Za-z0-9_.-].
 * - group (a lane): 1..ECHOMQ_GROUP_NAME_MAX bytes of valid UTF-8 with no NUL
 *   and no control characters (U+0000..U+001F, U+007F..U+009F), and at most
 *   one '/': LANE, TENANT/LANE (a lane of a tenant) or TENANT/ (the tenant
 *   itself, never a lane); neither part empty (docs/keys.md, "Tenants").
 *
 * Thread safety
 * - The free functions of this header (echomq_version, echomq_strerror, ...)
 *   are thread-safe.
 * - One client handle is one connection. It may be used from any thread, but
 *   by one thread at a time; the caller serialises access. The single
 *   exception is echomq_client_cancel(), which may be called from any thread
 *   while another thread is inside a call on the same handle.
 * - A worker engine (echomq/worker.h) is thread-safe.
 * - Job, batch, list and report handles are plain data; they may move between
 *   threads, and concurrent reads of one handle are safe.
 *
 * Signals
 * - The library installs no signal handler and never raises SIGPIPE: it
 *   sends with MSG_NOSIGNAL (TLS records too, through a socket BIO of its
 *   own), so a write into a connection the server closed
 *   is ECHOMQ_ECONN (nothing ran), or ECHOMQ_ECANCELED after a cancel. The
 *   host needs no SIG_IGN for SIGPIPE.
 */
#ifndef ECHOMQ_COMMON_H
#define ECHOMQ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define ECHOMQ_VERSION_MAJOR 0
#define ECHOMQ_VERSION_MINOR 5
#define ECHOMQ_VERSION_PATCH 0
/* major * 10000 + minor * 100 + patch, as returned by echomq_version(). */
#define ECHOMQ_VERSION_NUMBER \
  (ECHOMQ_VERSION_MAJOR * 10000 + ECHOMQ_VERSION_MINOR * 100 + ECHOMQ_VERSION_PATCH)

#if defined(SWIG)
#define ECHOMQ_API
#elif defined(_WIN32)
#define ECHOMQ_API __declspec(dllexport)
#elif defined(__GNUC__)
#define ECHOMQ_API __attribute__((visibility("default")))
#else
#define ECHOMQ_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status codes. Explicit numbers, never renumbered, never reused. The Lua
 * scripts return the same numbers, so a script refusal maps without parsing. */

typedef enum echomq_status {
  ECHOMQ_OK = 0,          /* success */
  ECHOMQ_EMPTY = 1,       /* nothing to claim right now (not an error) */
  ECHOMQ_UNCONFIRMED = 2, /* done, but not confirmed durable in time (only
                             with the wait_* client options): the write
                             happened and its results (ids, jobs, outcomes)
                             are valid, but it may be lost if the server
                             fails now. Not an error; never retry the call
                             blindly (an enqueue would run twice) */
  ECHOMQ_DUPLICATE = 3,   /* enqueue with an idempotency key seen within its
                             window: nothing was enqueued, the first job's id
                             is returned (not an error) */
  ECHOMQ_PENDING = 4,     /* echomq_wait_job: the job had not finished when
                             the wait ran out (not an error; wait again) */
  /* Since 0.5.0: what became of a failed job, returned by the worker
   * engine's report calls when echomq_worker_options.report_outcomes is 1
   * (never otherwise; echomq/worker.h says what is exact). Not errors: the
   * report was taken. */
  ECHOMQ_WILL_RETRY = 5,  /* the job will be retried: back to its lane at
                             once, or after its retry delay */
  ECHOMQ_WILL_DIE = 6,    /* the job will be dead-lettered: it used its
                             attempt budget, or it was discarded */
  ECHOMQ_WAS_CANCELED = 7, /* since 0.5.0 (echomq/lifecycle.h): the job was
                             canceled while leased. From a settlement (ack,
                             fail, a settlement list's entry): it settled as
                             canceled (dead-lettered, last error
                             "canceled", never retried) whatever was
                             reported. From an extension: extended, but stop
                             work; settling it settles it as canceled. From a
                             worker engine's report: the same as from a
                             settlement. Not an error */

  ECHOMQ_EINVAL = -1,     /* invalid argument: name, number, option, URL */
  ECHOMQ_ETOOLARGE = -2,  /* payload or batch over the limit */
  ECHOMQ_ENOTFOUND = -3,  /* no such job: a lookup or delete of a job that is
                             gone (acked and not retained, deleted) or never
                             existed; a settling call (ack, fail, extend,
                             progress) of an id the queue never minted */
  ECHOMQ_ESTALE = -4,     /* a settling call whose token is not the job's
                             current delivery's, or whose job is no longer
                             leased: the lease was lost, or the job was
                             settled already (a second ack) */
  ECHOMQ_EFULL = -5,      /* enqueue into a lane at its size cap: refused,
                             nothing written (a batch: none of it) */
  ECHOMQ_ELAYOUT = -6,    /* the queue's keys were written with another key
                             layout (an older EchoMQ): refused, nothing
                             written. See ECHOMQ_KEY_LAYOUT. */
  ECHOMQ_ELEASED = -7,    /* the job is leased by a worker now: refused,
                             nothing changed (delete it once it is settled) */
  ECHOMQ_ESHARDS = -8,    /* sharded queues: created with another shard
                             count, or a plain queue in use that cannot
                             become sharded; nothing changed */
  ECHOMQ_EFINISHED = -9,  /* since 0.5.0: echomq_cancel of a job that has
                             finished (completed, dead for another reason,
                             or acked and gone): nothing changed */
  ECHOMQ_EDEPENDS = -16,  /* since 0.5.0: delete of a job of a flow that has
                             not finished (a parent waits for it, or it waits
                             for its children): refused, nothing changed;
                             echomq_delete_flow removes the whole flow */

  ECHOMQ_ECONN = -10,     /* cannot connect, or the connection was lost
                             before the command was sent */
  ECHOMQ_ETIMEOUT = -11,  /* no reply in time, or the connection dropped
                             after the command was sent: the outcome is
                             UNKNOWN and the call is not retried */
  ECHOMQ_ECANCELED = -12, /* echomq_bclaim interrupted by echomq_client_cancel();
                             nothing was claimed */
  ECHOMQ_ETLS = -13,      /* TLS refused: the handshake failed, the server's
                             certificate is not trusted or not for its
                             name, or the server wants a client certificate
                             (none given, or not trusted). The message gives
                             OpenSSL's reason. No command ran */
  ECHOMQ_ETIMELIMIT = -14, /* since 0.5.0: the job's time limit ran out
                             (echomq_enqueue_options.timeout_ms or the
                             queue's default): the extension was refused,
                             the lease was not extended; the attempt fails
                             ("timed out") when its lease runs out */

  ECHOMQ_ESERVER = -20,   /* the server answered with an error that has no
                             status of its own (READONLY, WRONGTYPE,
                             redirect loop, ...) */
  ECHOMQ_ENOPERM = -21,   /* authentication failed, or an ACL denied a
                             command or key (also inside a script) */
  ECHOMQ_EPROTO = -22,    /* unexpected reply shape (version mismatch) */

  /* Retryable: the server refused the call before doing anything, so it
   * changed nothing; the same call may succeed a little later. */
  ECHOMQ_EBUSY = -23,     /* the server is busy running a script or function */
  ECHOMQ_ELOADING = -24,  /* the server is loading its dataset */
  ECHOMQ_ETRYAGAIN = -25, /* cluster slot in migration (TRYAGAIN) */
  ECHOMQ_EOOM = -26,      /* the server is out of memory under maxmemory:
                             the write was refused, nothing was written
                             (enqueue, lane settings and redrive can get it;
                             claim and the settling calls keep working) */

  ECHOMQ_ENOMEM = -30,    /* allocation failed */
  ECHOMQ_EINTERNAL = -31  /* a bug: please report it with the message */
} echomq_status;

/* Every call that talks to the server may also return ECHOMQ_EBUSY,
 * ECHOMQ_ELOADING or ECHOMQ_ETRYAGAIN (retryable, nothing changed); the
 * per-call lists name only the other errors. Every call that writes
 * (enqueue, claims that claimed something, every settlement, extend, lane
 * settings, redrive) may also return ECHOMQ_UNCONFIRMED when the client waits
 * for durability (echomq_client_options.wait_replicas / wait_aof): the call
 * did what ECHOMQ_OK says (outputs are set as for ECHOMQ_OK, or as for
 * ECHOMQ_EMPTY when a fused call claimed nothing), but the wait ended first.
 * Read-only calls and claims that found nothing never wait. A call that
 * reconnects (the connection was dropped) over TLS may also return
 * ECHOMQ_ETLS (for example a certificate that changed meanwhile); like
 * ECHOMQ_ECONN, nothing ran. */

/* Static English text for a status code; never NULL, never freed. */
ECHOMQ_API const char *echomq_strerror(int status);

/* Run-time library version (ECHOMQ_VERSION_NUMBER of the built library) and
 * its "major.minor.patch" string, so a binding can detect a mismatch. */
ECHOMQ_API unsigned int echomq_version(void);
ECHOMQ_API const char *echomq_version_string(void);

/* ------------------------------------------------------------------------ */
/* Limits: every bound of the API, in one place. Checked client-side, before
 * any I/O; the server's scripts get the same numbers (their prelude is
 * generated from this file). */

#define ECHOMQ_QUEUE_NAME_MAX 128
#define ECHOMQ_GROUP_NAME_MAX 256
#define ECHOMQ_DEFAULT_MAX_PAYLOAD (1024 * 1024)  /* bytes */
#define ECHOMQ_HARD_MAX_PAYLOAD (64 * 1024 * 1024)
#define ECHOMQ_BATCH_MAX 10000                    /* jobs in one batch (one script call) */
#define ECHOMQ_LEASE_MAX_MS (7LL * 24 * 3600 * 1000)
#define ECHOMQ_DELAY_MAX_MS (366LL * 24 * 3600 * 1000)
#define ECHOMQ_ATTEMPTS_MAX 1000000               /* a job's attempt budget (max attempts) */
#define ECHOMQ_WEIGHT_MAX 1000000
#define ECHOMQ_LIMIT_MAX 1000000000
#define ECHOMQ_WCLAIM_MAX 10000                   /* jobs in one wclaim */
#define ECHOMQ_REASON_MAX 4096                    /* bytes of a fail reason; longer is cut */
#define ECHOMQ_ID_MAX 9007199254740991LL          /* job ids, tokens and costs stay below 2^53 */
/* A fencing token is tick * ECHOMQ_TOKEN_SPREAD + the low bits of a random
 * nonce, its tick at least the server's ms since ECHOMQ_TOKEN_EPOCH_MS
 * (2024-01-01 UTC) at the claim (echomq_job_token). */
#define ECHOMQ_TOKEN_SPREAD 4096
#define ECHOMQ_TOKEN_EPOCH_MS 1704067200000LL
#define ECHOMQ_DEFAULT_MAX_ATTEMPTS 3             /* the attempt budget of a queue
                                                     without its own default */
/* Due delayed jobs and expired leases each brought back per claim call at
 * most: the bounded cost of recovery on the claim path. */
#define ECHOMQ_RECOVER_MAX 32
/* Version of the key layout this library reads and writes (docs/keys.md).
 * A queue written with another layout is refused with ECHOMQ_ELAYOUT. */
#define ECHOMQ_KEY_LAYOUT 4
#define ECHOMQ_RATE_JOBS_MAX 1000000               /* jobs (and burst) of a rate limit */
#define ECHOMQ_RATE_PERIOD_MAX_MS (24LL * 3600 * 1000)
#define ECHOMQ_CAP_MAX 1000000000                  /* a lane's size cap (jobs waiting
                                                     in it); not the attempt budget */
/* Idempotency keys of enqueue (docs/keys.md): 1..ECHOMQ_DEDUP_KEY_MAX bytes;
 * a key is remembered for its window (default ECHOMQ_DEDUP_WINDOW_DEFAULT_MS,
 * at most ECHOMQ_DEDUP_WINDOW_MAX_MS), and a queue remembers at most
 * ECHOMQ_DEDUP_KEYS_MAX keys: past that the key closest to its end is
 * forgotten first. Memory is bounded by both. */
#define ECHOMQ_DEDUP_KEY_MAX 256
#define ECHOMQ_DEDUP_WINDOW_DEFAULT_MS (24LL * 3600 * 1000)
#define ECHOMQ_DEDUP_WINDOW_MAX_MS (7LL * 24 * 3600 * 1000)
#define ECHOMQ_DEDUP_KEYS_MAX 1000000
/* Jobs a purge call removes at most (bounded work per call). */
#define ECHOMQ_PURGE_MAX 10000
/* Shard queues of one sharded queue at most (echomq_shards_create). */
#define ECHOMQ_SHARDS_MAX 256
/* Job names and headers (since 0.5.0; echomq_enqueue_options.name and
 * headers, docs/keys.md "Job record"): a name of 1..ECHOMQ_JOB_NAME_MAX
 * bytes; at most ECHOMQ_HEADERS_MAX headers, keys of 1 or more bytes, the
 * keys and values together at most ECHOMQ_HEADERS_BYTES_MAX bytes (above:
 * ECHOMQ_ETOOLARGE). A name, key or value holds no control character
 * (bytes 0..31 and 127; EINVAL), and two headers do not share a key. The
 * job stores them as one string of at most ECHOMQ_JOB_META_MAX bytes
 * (the name, then "\n" key "\t" value per header), which the scripts check
 * again. */
#define ECHOMQ_JOB_NAME_MAX 128
#define ECHOMQ_HEADERS_MAX 32
#define ECHOMQ_HEADERS_BYTES_MAX 4096
#define ECHOMQ_JOB_META_MAX 4288
/* Per-lane wait figures (echomq_set_wait_figures): a window of
 * 1..ECHOMQ_WAIT_WINDOW_MAX_S seconds. */
#define ECHOMQ_WAIT_WINDOW_MAX_S 86400
/* Outcomes (docs/keys.md, "Outcomes"). A result set when a job is acked
 * holds at most ECHOMQ_RESULT_MAX bytes, a progress value at most
 * ECHOMQ_PROGRESS_MAX (ETOOLARGE above). Retention: a time of
 * 1..ECHOMQ_KEEP_MAX_MS, a count of 1..ECHOMQ_KEEP_LAST_MAX. An event
 * stream holds about 1..ECHOMQ_EVENTS_MAXLEN_MAX entries. A job someone
 * waited for is kept at least ECHOMQ_WAIT_GRACE_MS after it finished, so
 * the waiter can read its outcome. */
#define ECHOMQ_RESULT_MAX (64 * 1024)
#define ECHOMQ_PROGRESS_MAX 1024
#define ECHOMQ_KEEP_MAX_MS (366LL * 24 * 3600 * 1000)
#define ECHOMQ_KEEP_LAST_MAX 10000000
#define ECHOMQ_EVENTS_MAXLEN_MAX 10000000
#define ECHOMQ_WAIT_GRACE_MS 60000
/* Entries of one page (echomq_lanes, echomq_dead) and ids of one
 * echomq_redrive (1..ECHOMQ_PAGE_MAX). */
#define ECHOMQ_PAGE_MAX 10000
/* Longest wait of a call or of an engine option: echomq_bclaim,
 * echomq_wait_job, echomq_events_read, echomq_worker_next, and the worker
 * options idle_wait_ms and idle_timeout_ms (one day). */
#define ECHOMQ_WAIT_MAX_MS (24LL * 3600 * 1000)
/* Durability waits (echomq_client_options, echomq_worker_options). */
#define ECHOMQ_WAIT_REPLICAS_MAX 100
#define ECHOMQ_WAIT_TIMEOUT_MAX_MS 60000
/* Longest target wait of latency-bounded prefetch (one minute;
 * echomq_worker_options.target_wait_ms). */
#define ECHOMQ_TARGET_WAIT_MAX_MS 60000

/* ------------------------------------------------------------------------ */
/* Retry delays of a fail beyond a number of ms (0..ECHOMQ_DELAY_MAX_MS):
 * echomq_fail, echomq_settle_fail, echomq_worker_fail. */
#define ECHOMQ_RETRY_BACKOFF (-1) /* exponential backoff: 1 s * 2^(attempt-1), at most 1 h */
#define ECHOMQ_RETRY_DEAD (-2)    /* dead-letter now, whatever attempts are left
                                     (a job that can never succeed) */
#define ECHOMQ_RETRY_RELEASE (-3) /* give back unstarted: back to its lane at its
                                     mint position at once, the attempt not
                                     counted (jobs prefetched but never run;
                                     settlement lists only) */
#define ECHOMQ_RETRY_DEFAULT (-4) /* the worker engine's retry_delay_ms
                                     (echomq_worker_fail only) */

/* ------------------------------------------------------------------------ */
/* Numbers the server's scripts return, shared by several topics. */

/* Where a job is (echomq_job_state_of; claimed jobs are LEASED, dead
 * listings DEAD). */
typedef enum echomq_job_state {
  ECHOMQ_JOB_PENDING = 1,  /* waiting in its lane */
  ECHOMQ_JOB_LEASED = 2,   /* held by a worker until its lease deadline */
  ECHOMQ_JOB_DELAYED = 3,  /* waiting for its due time (delay, retry backoff) */
  ECHOMQ_JOB_DEAD = 4,     /* dead-lettered */
  ECHOMQ_JOB_COMPLETED = 5, /* acked and retained (echomq_set_retention) */
  ECHOMQ_JOB_WAITING = 6   /* since 0.5.0: a flow's parent waiting for its
                              children (echomq/flows.h); it joins its lane
                              when the last of them has finished */
} echomq_job_state;

/* What a fail did with the job (echomq_fail, echomq_settle_status). */
typedef enum echomq_fail_outcome {
  ECHOMQ_FAIL_RETRY = 1,    /* back at its lane's mint position */
  ECHOMQ_FAIL_DELAYED = 2,  /* waiting in the delayed set for its retry */
  ECHOMQ_FAIL_DEAD = 3      /* out of attempts: dead-lettered */
} echomq_fail_outcome;

/* ------------------------------------------------------------------------ */
/* Handles, all opaque; the topic header named beside each documents it. */

typedef struct echomq_client echomq_client;          /* client.h: one connection */
typedef struct echomq_job echomq_job;                /* job.h: a job snapshot */
typedef struct echomq_job_list echomq_job_list;      /* job.h: jobs of one call */
typedef struct echomq_batch echomq_batch;            /* queue.h: jobs to enqueue */
typedef struct echomq_settle echomq_settle;          /* queue.h: a settlement list */
typedef struct echomq_worker echomq_worker;          /* worker.h: the worker engine */
typedef struct echomq_lane_list echomq_lane_list;    /* inspect.h: a page of lanes */
typedef struct echomq_report echomq_report;          /* inspect.h: lines of text */
typedef struct echomq_event_list echomq_event_list;  /* outcomes.h: stream entries */

/* Check names without any I/O. Return ECHOMQ_OK or ECHOMQ_EINVAL.
 * Thread-safe. */
ECHOMQ_API int echomq_check_queue_name(const char *queue);
ECHOMQ_API int echomq_check_group_name(const char *group);

/* What a name is checked as by echomq_check_name (0.5.0). */
enum {
  ECHOMQ_NAME_QUEUE = 1, /* a queue name */
  ECHOMQ_NAME_GROUP = 2, /* a lane or a tenant's own name "T/" (what the lane settings take) */
  ECHOMQ_NAME_LANE = 3   /* a lane that holds jobs (what enqueue, caps and purge take) */
};

/* Checks len bytes of name as `kind` without any I/O (binary-safe: a NUL
 * byte is refused by name) and says why it is refused: ECHOMQ_OK with ""
 * in buf, or ECHOMQ_EINVAL with the message a call given that name would
 * set (English, NUL-terminated, cut to buf_size - 1 bytes; it shows at most
 * the first 32 bytes of the name). buf may be NULL when buf_size is 0.
 * Thread-safe. */
ECHOMQ_API int echomq_check_name(int kind, const char *name, size_t len, char *buf, size_t buf_size);

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_COMMON_H */
