/*
 * echomq.h — the stable C API of libechomq: fair lanes for job queues over Valkey.
 *
 * This is the one boundary every binding builds on. It is plain C99, includes
 * no C++ and no hiredis header, and no C++ exception ever crosses it.
 *
 * Conventions
 * - Every call returns an `int` status from `echomq_status` (0 = ECHOMQ_OK),
 *   unless its comment says otherwise. On failure the client handle keeps a
 *   message for the last call: `echomq_client_errmsg(c)`.
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
 *   are only ever added at the end.
 * - Input is validated before any network I/O: a call refused with
 *   ECHOMQ_EINVAL or ECHOMQ_ETOOLARGE has sent nothing and changed nothing.
 *
 * Names
 * - queue: 1..128 bytes of [A-Za-z0-9_.-].
 * - group (a lane): 1..256 bytes of valid UTF-8 with no NUL and no control
 *   characters (U+0000..U+001F, U+007F..U+009F).
 *
 * Thread safety
 * - The free functions (echomq_version, echomq_strerror, ...) are thread-safe.
 * - One client handle is one connection. It may be used from any thread, but
 *   by one thread at a time; the caller serialises access. The single
 *   exception is echomq_client_cancel(), which may be called from any thread
 *   while another thread is inside a call on the same handle.
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
#ifndef ECHOMQ_ECHOMQ_H
#define ECHOMQ_ECHOMQ_H

#include <stddef.h>
#include <stdint.h>

#define ECHOMQ_VERSION_MAJOR 0
#define ECHOMQ_VERSION_MINOR 4
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

  ECHOMQ_EINVAL = -1,     /* invalid argument: name, number, option, URL */
  ECHOMQ_ETOOLARGE = -2,  /* payload or batch over the limit */
  ECHOMQ_ENOTFOUND = -3,  /* no such job (already acked, or never existed) */
  ECHOMQ_ESTALE = -4,     /* token is not the job's current delivery's, or
                             the job is no longer leased: the lease was lost */
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
 * per-call lists below name only the other errors. Every call that writes
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
/* Limits. Checked client-side, before any I/O. */

#define ECHOMQ_QUEUE_NAME_MAX 128
#define ECHOMQ_GROUP_NAME_MAX 256
#define ECHOMQ_DEFAULT_MAX_PAYLOAD (1024 * 1024)  /* bytes */
#define ECHOMQ_HARD_MAX_PAYLOAD (64 * 1024 * 1024)
#define ECHOMQ_BATCH_MAX 10000                    /* jobs in one batch (one script call) */
#define ECHOMQ_LEASE_MAX_MS (7LL * 24 * 3600 * 1000)
#define ECHOMQ_DELAY_MAX_MS (366LL * 24 * 3600 * 1000)
#define ECHOMQ_ATTEMPTS_MAX 1000000
#define ECHOMQ_WEIGHT_MAX 1000000
#define ECHOMQ_LIMIT_MAX 1000000000
#define ECHOMQ_WCLAIM_MAX 10000                   /* jobs in one wclaim */
#define ECHOMQ_REASON_MAX 4096                    /* bytes of a fail reason; longer is cut */
#define ECHOMQ_ID_MAX 9007199254740991LL          /* job ids and tokens stay below 2^53 */
/* A fencing token is tick * ECHOMQ_TOKEN_SPREAD + the low bits of a random
 * nonce, its tick at least the server's ms since ECHOMQ_TOKEN_EPOCH_MS
 * (2024-01-01 UTC) at the claim (echomq_job_token). */
#define ECHOMQ_TOKEN_SPREAD 4096
#define ECHOMQ_TOKEN_EPOCH_MS 1704067200000LL
#define ECHOMQ_DEFAULT_MAX_ATTEMPTS 3             /* for a queue without its own default */
/* Due delayed jobs and expired leases each brought back per claim call at
 * most: the bounded cost of recovery on the claim path. */
#define ECHOMQ_RECOVER_MAX 32
/* Version of the key layout this library reads and writes (docs/keys.md).
 * A queue written with another layout is refused with ECHOMQ_ELAYOUT. */
#define ECHOMQ_KEY_LAYOUT 4
#define ECHOMQ_RATE_JOBS_MAX 1000000               /* jobs (and burst) of a rate limit */
#define ECHOMQ_RATE_PERIOD_MAX_MS (24LL * 3600 * 1000)
#define ECHOMQ_CAP_MAX 1000000000                  /* a lane's size cap */
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

/* Check names without any I/O. Return ECHOMQ_OK or ECHOMQ_EINVAL. */
ECHOMQ_API int echomq_check_queue_name(const char *queue);
ECHOMQ_API int echomq_check_group_name(const char *group);

/* ------------------------------------------------------------------------ */
/* Client: one connection to one Valkey server. */

typedef struct echomq_client echomq_client;

typedef struct echomq_client_options {
  unsigned int version;        /* ECHOMQ_CLIENT_OPTIONS_VERSION */
  int connect_timeout_ms;      /* TCP/unix connect; default 2000; >= 1 */
  int command_timeout_ms;      /* reply wait of a non-blocking call; default 5000; >= 1 */
  size_t max_payload_bytes;    /* default ECHOMQ_DEFAULT_MAX_PAYLOAD;
                                  1..ECHOMQ_HARD_MAX_PAYLOAD */
  /* Since version 2 (0.3.0): durability. After every call that wrote, wait
   * until the server confirms the write reached wait_replicas replicas
   * (WAIT) and, with wait_aof, its own append-only file (WAITAOF 1), for at
   * most wait_timeout_ms; when it does not in time (or the wait itself
   * fails, for example WAITAOF without appendonly yes), the call returns
   * ECHOMQ_UNCONFIRMED and the message says why. Costs one round trip per
   * writing call plus the replication or fsync delay (bench/README.md). */
  int wait_replicas;           /* 0 = do not wait (default); 0..ECHOMQ_WAIT_REPLICAS_MAX */
  int wait_aof;                /* 1 = wait for the local AOF fsync; default 0.
                                  With wait_replicas too, a replica counts
                                  once it fsynced its own AOF (WAITAOF 1 N):
                                  replicas need appendonly yes as well */
  int wait_timeout_ms;         /* default 1000; 1..ECHOMQ_WAIT_TIMEOUT_MAX_MS */
  /* Since version 3 (0.4.0): TLS, for valkeys:// and rediss:// URLs. Each
   * field is what the URL's query parameter of the same name would say
   * (ca=, cert=, key=, sni=, verify=none) and is used only where the URL
   * does not give that parameter: the URL wins, field by field. Setting any
   * of them for a URL without TLS is EINVAL at connect. The strings are
   * copied by echomq_client_new; NULL or "" = not set. Files are read
   * (missing or unreadable: EINVAL) before any network I/O. */
  const char *tls_ca;          /* CA file (PEM) or directory that signs the
                                  server's certificate; NULL = the system's
                                  default trust store */
  const char *tls_cert;        /* client certificate chain (PEM), for servers
                                  that require one (tls-auth-clients yes) */
  const char *tls_key;         /* its private key (PEM); NULL = in tls_cert */
  const char *tls_sni;         /* name sent (SNI) and checked against the
                                  certificate; NULL = the URL's host. Cluster
                                  redirects check the new host */
  int tls_insecure_skip_verify; /* 1 = accept ANY certificate for any name
                                  (verify=none): anyone on the path can read
                                  and change the traffic. For tests only;
                                  default 0 */
} echomq_client_options;

#define ECHOMQ_CLIENT_OPTIONS_VERSION 3
/* A caller built against version 1 (no wait_* fields) passes 1 and keeps
 * working: no durability wait. Version 2 has no tls_* fields. */
#define ECHOMQ_CLIENT_OPTIONS_VERSION_1 1
#define ECHOMQ_CLIENT_OPTIONS_VERSION_2 2
#define ECHOMQ_CLIENT_OPTIONS_INIT \
  { ECHOMQ_CLIENT_OPTIONS_VERSION, 2000, 5000, ECHOMQ_DEFAULT_MAX_PAYLOAD, 0, 0, 1000, \
    NULL, NULL, NULL, NULL, 0 }
#define ECHOMQ_WAIT_REPLICAS_MAX 100
#define ECHOMQ_WAIT_TIMEOUT_MAX_MS 60000

/* Fill *opts with defaults (an older version: that version's fields only).
 * Errors: EINVAL (NULL or unknown version). */
ECHOMQ_API int echomq_client_options_init(echomq_client_options *opts, unsigned int version);

/* Create a client handle (no network I/O). opts may be NULL; version 1, 2
 * or 3. Errors: EINVAL (bad option values, unknown version, a TLS file
 * that is missing, unreadable or broken, a key that does not match its
 * certificate), ENOMEM. *out is NULL on error. */
ECHOMQ_API int echomq_client_new(echomq_client **out, const echomq_client_options *opts);

/* Same as echomq_client_new, returning the handle (NULL on error). For
 * bindings that do not handle `T **out` well. */
ECHOMQ_API echomq_client *echomq_client_create(const echomq_client_options *opts);

/* Connect (or reconnect) to a server. URL forms:
 *   valkey://[user[:password]@]host[:port][/db]   (also redis://; port 6379)
 *   valkeys://[user[:password]@]host[:port][/db][?query]   (also rediss://): TLS
 *   unix://[user[:password]@]/path/to/socket[?db=N]
 * The TLS query (percent-escaped values, '&' between them):
 *   ca=/path/ca.pem     CA file or directory; default: the system trust store
 *   cert=/path/c.pem    client certificate chain (servers that require one)
 *   key=/path/c.key     its private key (default: in the cert file)
 *   sni=name            name sent and checked instead of the host
 *   verify=none         accept any certificate: tests only, never production
 * The server's certificate chain and its name (the host, an IP address
 * too) are checked by default. With TLS, one PING confirms the session
 * before AUTH. Every connection of the client (and of a worker, and every
 * cluster node and redirect) uses the same settings.
 * Authenticates (AUTH), selects the db (SELECT) and loads the scripts.
 * Errors: EINVAL (bad URL: unknown query parameter, a TLS parameter without
 * TLS, TLS files missing or unreadable; TLS options with a non-TLS URL),
 * ECONN, ETIMEOUT, ETLS (TLS refused: nothing ran), ENOPERM (AUTH
 * refused), ESERVER. */
ECHOMQ_API int echomq_client_connect(echomq_client *c, const char *url);

/* Close the connection and free the handle. NULL is a no-op. */
ECHOMQ_API void echomq_client_free(echomq_client *c);

/* Message of the last failed call on this handle ("" after a success).
 * Owned by the handle; valid until the next call on it. Never NULL for a
 * non-NULL handle. */
ECHOMQ_API const char *echomq_client_errmsg(const echomq_client *c);

/* Status of the last call on this handle. */
ECHOMQ_API int echomq_client_errcode(const echomq_client *c);

/* 1 if the handle holds a live connection, else 0. No I/O. */
ECHOMQ_API int echomq_client_connected(const echomq_client *c);

/* Cancel an echomq_bclaim in progress on c from another thread (for example
 * when a context is cancelled). If the bclaim is waiting on the server, the
 * wait is interrupted at once; if it is running its claim script, it finishes
 * that and returns the job it got, or ECHOMQ_ECANCELED instead of waiting.
 * ECHOMQ_ECANCELED from echomq_bclaim always means nothing was claimed. An
 * interrupted connection is dropped and re-established by the next call.
 * Outside an echomq_bclaim (including just before one starts) this does
 * nothing; other calls are bounded by the command timeout. Thread-safe. */
ECHOMQ_API void echomq_client_cancel(echomq_client *c);

/* Send PING. Errors: ECONN, ETIMEOUT, ESERVER. */
ECHOMQ_API int echomq_client_ping(echomq_client *c);

/* ------------------------------------------------------------------------ */
/* Jobs. A job handle is a snapshot returned by claim, wclaim and dead
 * listings; it is freed with echomq_job_free (or with its list). */

typedef struct echomq_job echomq_job;

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
 * took (docs/architecture.md, "Fencing tokens"). For dead jobs, the
 * attempts used (as before 0.3). */
ECHOMQ_API uint64_t echomq_job_token(const echomq_job *j);
ECHOMQ_API uint32_t echomq_job_max_attempts(const echomq_job *j);
/* Server ms: lease deadline (0 if not leased), enqueue time, and for dead
 * jobs the time of death (0 otherwise). */
ECHOMQ_API int64_t echomq_job_lease_until_ms(const echomq_job *j);
ECHOMQ_API int64_t echomq_job_enqueued_at_ms(const echomq_job *j);
ECHOMQ_API int64_t echomq_job_dead_at_ms(const echomq_job *j);
/* Reason given by the last fail of this job ("" if none): on a claimed
 * job, why the previous attempt failed; on a dead job, why it died. */
ECHOMQ_API const char *echomq_job_last_error(const echomq_job *j);
/* Where a job is (echomq_get_job; claimed jobs are LEASED, dead listings DEAD). */
typedef enum echomq_job_state {
  ECHOMQ_JOB_PENDING = 1,  /* waiting in its lane */
  ECHOMQ_JOB_LEASED = 2,   /* held by a worker until its lease deadline */
  ECHOMQ_JOB_DELAYED = 3,  /* waiting for its due time (delay, retry backoff) */
  ECHOMQ_JOB_DEAD = 4,     /* dead-lettered */
  ECHOMQ_JOB_COMPLETED = 5 /* acked and retained (echomq_set_retention) */
} echomq_job_state;
/* Version 0.3 accessors. The job's echomq_job_state. */
ECHOMQ_API int echomq_job_state_of(const echomq_job *j);
/* Which attempt of its current budget this delivery is, 1..max attempts
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
ECHOMQ_API void echomq_job_free(echomq_job *j);

/* A list of jobs (wclaim, dead listing). Jobs inside are owned by the list. */
typedef struct echomq_job_list echomq_job_list;
ECHOMQ_API size_t echomq_job_list_count(const echomq_job_list *l);
/* Borrowed pointer, NULL if i is out of range. */
ECHOMQ_API const echomq_job *echomq_job_list_at(const echomq_job_list *l, size_t i);
ECHOMQ_API void echomq_job_list_free(echomq_job_list *l);

/* ------------------------------------------------------------------------ */
/* Enqueue */

typedef struct echomq_enqueue_options {
  unsigned int version;   /* ECHOMQ_ENQUEUE_OPTIONS_VERSION */
  int64_t delay_ms;       /* 0 = ready now; 0..ECHOMQ_DELAY_MAX_MS */
  uint32_t max_attempts;  /* 0 = queue default (3); 1..ECHOMQ_ATTEMPTS_MAX */
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
} echomq_enqueue_options;

/* 5 in 0.5.0, 4 and 3 in 0.4.0, 2 since 0.3.0; a caller built against
 * version 1 passes 1 and has no idempotency key, against version 2 passes
 * 2 and has no retention of its own, against version 3 passes 3 and has no
 * estimate, against version 4 passes 4 and has no at_ms. */
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION 5
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_1 1
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_2 2
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_3 3
#define ECHOMQ_ENQUEUE_OPTIONS_VERSION_4 4
#define ECHOMQ_ENQUEUE_OPTIONS_INIT { ECHOMQ_ENQUEUE_OPTIONS_VERSION, 0, 0, NULL, 0, 0, 0, 0, 0 }
ECHOMQ_API int echomq_enqueue_options_init(echomq_enqueue_options *opts, unsigned int version);

/* Enqueue one job on lane `group`. *id_out (may be NULL) receives the job id;
 * ids grow in mint order.
 * With an idempotency key (options version 2): when the queue saw the same
 * key within its window, nothing is enqueued, *id_out receives the first
 * job's id and the call returns ECHOMQ_DUPLICATE (3, not an error; it comes
 * back even if that job has since finished or was deleted). Otherwise the
 * job is enqueued and the key remembered for the window. Without a key this
 * never returns ECHOMQ_DUPLICATE.
 * Errors: EINVAL (names, options), ETOOLARGE (payload), ECONN, ETIMEOUT
 * (unknown outcome: the job may exist), EOOM (the server is full: nothing
 * was written; drain or free memory and retry), ESERVER, ENOPERM. */
ECHOMQ_API int echomq_enqueue(echomq_client *c, const char *queue, const char *group,
                              const char *payload, size_t payload_len,
                              const echomq_enqueue_options *opts, uint64_t *id_out);

/* A batch collects many jobs to enqueue in one round trip. Each job is
 * validated when it is added, so a bad job is refused before any I/O. */
typedef struct echomq_batch echomq_batch;
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
/* 1 if entry i was a duplicate after a successful echomq_enqueue_batch (its
 * id is the first job's), else 0. */
ECHOMQ_API int echomq_batch_duplicate(const echomq_batch *b, size_t i);
/* Empty the batch for reuse. */
ECHOMQ_API void echomq_batch_clear(echomq_batch *b);
ECHOMQ_API void echomq_batch_free(echomq_batch *b);

/* Enqueue every job of the batch with the same options, in batch order, in
 * one script call (one round trip). All or nothing: a refused batch writes
 * nothing. Errors: as echomq_enqueue, and EINVAL for an empty batch. */
ECHOMQ_API int echomq_enqueue_batch(echomq_client *c, const char *queue, echomq_batch *b,
                                    const echomq_enqueue_options *opts);

/* ------------------------------------------------------------------------ */
/* Claim. Every claim rotates the ring one step and serves the lane it just
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
 * timeout_ms (>= 1; at most 24 h) and wakes as soon as work arrives, a
 * delayed job falls due or a lease expires. Returns ECHOMQ_EMPTY at the timeout.
 * Errors: as echomq_claim, plus ECANCELED (echomq_client_cancel). */
ECHOMQ_API int echomq_bclaim(echomq_client *c, const char *queue, int64_t lease_ms,
                             int64_t timeout_ms, echomq_job **out);

/* ------------------------------------------------------------------------ */
/* Settle a leased job. `token` is the job's echomq_job_token of the delivery
 * being settled. A token that is not the current delivery's, or a job that is
 * no longer leased, gets ECHOMQ_ESTALE and changes nothing. */

/* Acknowledge: the job is done and deleted.
 * Errors: EINVAL, ESTALE, ENOTFOUND, ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_ack(echomq_client *c, const char *queue, uint64_t id, uint64_t token);

/* Acknowledge n jobs (1..ECHOMQ_WCLAIM_MAX) in one round trip, typically
 * the jobs of one wclaim. Each job is settled on its own: statuses[i] (may
 * be NULL) receives ECHOMQ_OK, ECHOMQ_ESTALE or ECHOMQ_ENOTFOUND for job i
 * (a refused job changes nothing), and *acked (may be NULL) how many were
 * acked. Returns ECHOMQ_OK when the call went through, even if some jobs
 * were refused. Errors: EINVAL (NULL arrays, n out of range, an id or token
 * of 0: nothing is sent), ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_ack_many(echomq_client *c, const char *queue, const uint64_t *ids,
                               const uint64_t *tokens, size_t n, int *statuses, size_t *acked);

/* Fused ack-and-claim, one round trip: acknowledge (id, token), then claim
 * the next job exactly as echomq_claim would. If the ack is refused (ESTALE,
 * ENOTFOUND) nothing is claimed and that status is returned. On success
 * returns ECHOMQ_OK with *next set or ECHOMQ_EMPTY with *next NULL (the ack
 * happened in both cases). */
ECHOMQ_API int echomq_ack_claim(echomq_client *c, const char *queue, uint64_t id,
                                uint64_t token, int64_t lease_ms, echomq_job **next);

/* What echomq_fail did with the job. */
typedef enum echomq_fail_outcome {
  ECHOMQ_FAIL_RETRY = 1,    /* back at its lane's mint position */
  ECHOMQ_FAIL_DELAYED = 2,  /* waiting in the delayed set for its retry */
  ECHOMQ_FAIL_DEAD = 3      /* out of attempts: dead-lettered */
} echomq_fail_outcome;

/* Retry delay meaning "exponential backoff": 1 s * 2^(attempt-1), at most 1 h. */
#define ECHOMQ_RETRY_BACKOFF (-1)

/* Fail the current attempt with a reason (may be NULL; cut at
 * ECHOMQ_REASON_MAX bytes). retry_delay_ms: 0 = straight back to its lane,
 * > 0 = after that delay (<= ECHOMQ_DELAY_MAX_MS), ECHOMQ_RETRY_BACKOFF =
 * exponential, ECHOMQ_RETRY_DEAD = do not retry: dead-letter it now,
 * attempts left or not (the C form of Python's echomq.NoRetry and Go's
 * echomq.Discard; echomq_worker_discard in the worker engine). When the job has used its max attempts it is dead-lettered
 * instead. *outcome (may be NULL) receives an echomq_fail_outcome.
 * Errors: EINVAL, ESTALE, ENOTFOUND, ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_fail(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                           const char *reason, int64_t retry_delay_ms, int *outcome);

/* Acknowledge with a result: as echomq_ack, and when the job's outcome is
 * retained (echomq_set_retention, a job's own keep_ms / keep_last, or a
 * waiter) the result (0..ECHOMQ_RESULT_MAX bytes, binary) is kept with it
 * and shown by echomq_get_job and echomq_wait_job; otherwise it is dropped.
 * Errors: as echomq_ack, and ETOOLARGE for a result over the limit, EINVAL
 * for NULL with a non-zero length (nothing sent). */
ECHOMQ_API int echomq_ack_result(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                                 const char *result, size_t result_len);

/* Extend the lease to server now + lease_ms. *lease_until_ms (may be NULL)
 * receives the new deadline. Errors: EINVAL, ESTALE, ENOTFOUND, ECONN,
 * ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_extend(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                             int64_t lease_ms, int64_t *lease_until_ms);

/* ------------------------------------------------------------------------ */
/* Batches: many turns of the ring, and settlement fused with the next claim,
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

/* Retry delays of a fail beyond a number of ms and ECHOMQ_RETRY_BACKOFF:
 * dead-letter now, whatever attempts are left (a job that can never
 * succeed); give back unstarted (back to its lane at its mint position at
 * once, the attempt not counted: for jobs prefetched but never run). */
#define ECHOMQ_RETRY_DEAD (-2)
#define ECHOMQ_RETRY_RELEASE (-3)

/* A settlement list: acks and fails of held jobs, sent in one call. Plain
 * data, no I/O; one thread at a time. */
typedef struct echomq_settle echomq_settle;
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
 * ESTALE, ENOTFOUND. Before a call, or i out of range: ECHOMQ_EINVAL. */
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
 * call; statuses[i] (may be NULL) gets OK, ESTALE or ENOTFOUND for each, and
 * *lease_until_ms (may be NULL) the new deadline. Returns ECHOMQ_OK when the
 * call went through. Errors: EINVAL, ECONN, ETIMEOUT, ESERVER. */
ECHOMQ_API int echomq_extend_many(echomq_client *c, const char *queue, const uint64_t *ids,
                                  const uint64_t *tokens, size_t n, int64_t lease_ms,
                                  int *statuses, int64_t *lease_until_ms);

/* ------------------------------------------------------------------------ */
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
 *
 * Thread safety: every echomq_worker_* call is thread-safe, except
 * echomq_worker_free, which must be the last call on the handle.
 * Job handles from echomq_worker_next belong to the caller (echomq_job_free);
 * report each exactly once, then free it. */

typedef struct echomq_worker echomq_worker;

typedef struct echomq_worker_options {
  unsigned int version;      /* ECHOMQ_WORKER_OPTIONS_VERSION */
  unsigned int slots;        /* jobs held at once, running or prefetched;
                                default 8; 1..ECHOMQ_BATCH_MAX */
  unsigned int prefetch;     /* jobs claimed per round trip at most;
                                0 = slots (default); 1..slots */
  int64_t lease_ms;          /* default 30000; extended while a job runs */
  int weighted;              /* 1 = weighted turns (wclaim); default 0.
                                A batch then ends at a turn boundary: a
                                lane's turn is not split between two round
                                trips unless its K exceeds the batch */
  int64_t retry_delay_ms;    /* for echomq_worker_fail with
                                ECHOMQ_RETRY_DEFAULT: default
                                ECHOMQ_RETRY_BACKOFF (exponential) */
  int64_t idle_wait_ms;      /* longest server-side wait of an idle round;
                                default 5000 */
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
} echomq_worker_options;

#define ECHOMQ_WORKER_OPTIONS_VERSION 3
/* A caller built against version 1 (no wait_* fields) passes 1. */
#define ECHOMQ_WORKER_OPTIONS_VERSION_1 1
/* A caller built against version 2 (no target_wait_ms) passes 2. */
#define ECHOMQ_WORKER_OPTIONS_VERSION_2 2
/* Longest target wait of latency-bounded prefetch (one minute). */
#define ECHOMQ_TARGET_WAIT_MAX_MS 60000
#define ECHOMQ_WORKER_OPTIONS_INIT \
  { ECHOMQ_WORKER_OPTIONS_VERSION, 8, 0, 30000, 0, ECHOMQ_RETRY_BACKOFF, 5000, 2000, 5000, 0, 0, 1000, 5 }
/* Retry delay of echomq_worker_fail meaning "the worker's retry_delay_ms". */
#define ECHOMQ_RETRY_DEFAULT (-4)

/* Fill *opts with defaults (version 1 or 2: that version's fields only).
 * Errors: EINVAL (NULL or unknown version). */
ECHOMQ_API int echomq_worker_options_init(echomq_worker_options *opts, unsigned int version);

/* Create a worker for `queue` on the server at `url` (no I/O; opts may be
 * NULL). Errors: EINVAL (URL, queue name, option values), ENOMEM; *out is
 * NULL on error. */
ECHOMQ_API int echomq_worker_new(echomq_worker **out, const char *url, const char *queue,
                                 const echomq_worker_options *opts);
/* Same, returning the handle (NULL on error). */
ECHOMQ_API echomq_worker *echomq_worker_create(const char *url, const char *queue,
                                               const echomq_worker_options *opts);
/* Connect and start the engine. Errors: EINVAL (started already), ECONN,
 * ETIMEOUT, ETLS, ENOPERM, ESERVER; the message of a failed connect is kept for
 * echomq_worker_last_error. */
ECHOMQ_API int echomq_worker_start(echomq_worker *w);

/* Wait up to timeout_ms (0 = do not wait) for a job to run. ECHOMQ_OK with
 * *out set, ECHOMQ_EMPTY at the timeout, ECHOMQ_ECANCELED once the worker is
 * stopping (no new job will come). Errors: EINVAL (not started). */
ECHOMQ_API int echomq_worker_next(echomq_worker *w, int64_t timeout_ms, echomq_job **out);

/* The job succeeded: acked with the next round trip. Errors: EINVAL,
 * ENOTFOUND (not held: reported already, or its lease was lost while it
 * ran, so another worker may have it), ECANCELED (the worker has stopped;
 * the job comes back when its lease expires). */
ECHOMQ_API int echomq_worker_done(echomq_worker *w, const echomq_job *job);
/* The job failed: retried after retry_delay_ms (ms, ECHOMQ_RETRY_BACKOFF,
 * ECHOMQ_RETRY_DEFAULT) or dead-lettered when out of attempts. reason may be
 * NULL. Errors: as echomq_worker_done. */
ECHOMQ_API int echomq_worker_fail(echomq_worker *w, const echomq_job *job, const char *reason,
                                  int64_t retry_delay_ms);
/* The job can never succeed: dead-lettered now, attempts left or not. */
ECHOMQ_API int echomq_worker_discard(echomq_worker *w, const echomq_job *job, const char *reason);
/* The job succeeded with a result (0..ECHOMQ_RESULT_MAX bytes, copied), as
 * echomq_ack_result; in a queue's cost mode its lane is charged the measured
 * handler time. Errors: as echomq_worker_done, and ETOOLARGE, EINVAL (NULL
 * with a non-zero length). */
ECHOMQ_API int echomq_worker_done_result(echomq_worker *w, const echomq_job *job, const char *result,
                                         size_t result_len);

/* A job report: what became of a job beyond done or failed, given with the
 * one call that settles it, so the settlement carries all of it: what the
 * job's work cost, charged to its lane in a queue's cost mode
 * (echomq_set_cost_mode), and a done job's result. Fields are only ever
 * added at the end. The struct is the caller's; the library copies what it
 * needs before the call returns. (echomq_report is the name of the queue
 * listing below.) */
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
} echomq_job_report;
#define ECHOMQ_JOB_REPORT_VERSION 2
/* A caller built against version 1 (no result) passes 1. */
#define ECHOMQ_JOB_REPORT_VERSION_1 1
#define ECHOMQ_JOB_REPORT_INIT { ECHOMQ_JOB_REPORT_VERSION, 0, NULL, 0 }
/* Fill *r with defaults (version 1: that version's fields only). Errors:
 * EINVAL (NULL or unknown version). */
ECHOMQ_API int echomq_job_report_init(echomq_job_report *r, unsigned int version);
/* echomq_worker_done / echomq_worker_fail with a report (r may be NULL: as
 * without one). done_with with a result and a cost is the one call for a
 * handler that returns a result and reports its own cost: the result is
 * kept and the lane charged that cost, in the same round trip. Errors: as
 * echomq_worker_done; EINVAL for a bad report (unknown version, cost over
 * ECHOMQ_ID_MAX, NULL result with a non-zero length, a result given to
 * fail_with), ETOOLARGE for a result over ECHOMQ_RESULT_MAX. Nothing is
 * settled when a report is refused: the job is still the caller's to
 * report. */
ECHOMQ_API int echomq_worker_done_with(echomq_worker *w, const echomq_job *job, const echomq_job_report *r);
ECHOMQ_API int echomq_worker_fail_with(echomq_worker *w, const echomq_job *job, const char *reason,
                                       int64_t retry_delay_ms, const echomq_job_report *r);

/* Stop modes. Both give prefetched, unstarted jobs back to their lanes (at
 * their mint position, at once, the attempt not counted). */
#define ECHOMQ_STOP_DRAIN 1   /* wait (up to the timeout) for running jobs to
                                 be reported, and settle them */
#define ECHOMQ_STOP_ABANDON 0 /* stop now: running jobs come back when their
                                 leases expire */

/* Stop the engine (idempotent). Returns ECHOMQ_OK, or ECHOMQ_ETIMEOUT when a
 * drain ended with jobs still running: it timed out, or an abandon from
 * another thread cut it short (they come back by their leases). A drain and
 * an abandon may run on two threads at once (a second signal while a
 * graceful stop waits). */
ECHOMQ_API int echomq_worker_stop(echomq_worker *w, int mode, int64_t timeout_ms);

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
} echomq_worker_stats;
#define ECHOMQ_WORKER_STATS_VERSION 2
/* A caller built against version 1 (no unconfirmed field) passes 1. */
#define ECHOMQ_WORKER_STATS_VERSION_1 1
/* Errors: EINVAL (NULL, version). */
ECHOMQ_API int echomq_worker_stats_get(echomq_worker *w, echomq_worker_stats *out);

/* Copies the message of the engine's last failed server call ("" if none)
 * into buf (cut to cap - 1 bytes, NUL-terminated) and returns its status
 * (0 if none). The engine retries failed calls itself after a backoff. */
ECHOMQ_API int echomq_worker_last_error(echomq_worker *w, char *buf, size_t cap);

/* Stop (abandon) if running, and free. NULL is a no-op. */
ECHOMQ_API void echomq_worker_free(echomq_worker *w);

/* ------------------------------------------------------------------------ */
/* Lane control. Each call fixes ring membership at once and applies to the
 * lane's existing backlog. Configuring a lane that has no jobs yet works.
 * Errors (all): EINVAL, ECONN, ETIMEOUT, EOOM (server full: nothing written),
 * ESERVER, ENOPERM. */

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
 * max_attempts: 1..ECHOMQ_ATTEMPTS_MAX, for jobs enqueued with 0. */
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
/* Queue default cap for lanes without their own; 0 clears it. */
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

/* ------------------------------------------------------------------------ */
/* Inspection (read-only). echomq_stats, _lane, _lanes, _dead and _verify
 * run read-only scripts (EVALSHA_RO): they work on a replica, under CLIENT
 * PAUSE WRITE and for a user with read-only key permissions (see
 * docs/operations.md for the ACLs). */

typedef struct echomq_queue_stats {
  unsigned int version;     /* set to ECHOMQ_QUEUE_STATS_VERSION before the call */
  uint64_t lanes;           /* lanes known: with live jobs or with settings */
  uint64_t ring;            /* lanes serviceable now (ring length) */
  uint64_t pending;         /* jobs waiting in lanes */
  uint64_t leased;          /* jobs under lease */
  uint64_t delayed;         /* jobs waiting for a due time */
  uint64_t dead;            /* dead-lettered jobs */
  uint64_t paused;          /* paused lanes */
  uint64_t enqueued_total;  /* counters since the queue was created */
  uint64_t claimed_total;   /* deliveries (= served) */
  uint64_t acked_total;
  uint64_t failed_total;    /* fail calls and expired leases */
  uint64_t dead_total;
  uint32_t default_weight;
  uint32_t default_limit;   /* 0 = unlimited */
  uint32_t default_max_attempts;
  int64_t server_time_ms;
} echomq_queue_stats;

#define ECHOMQ_QUEUE_STATS_VERSION 1

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
} echomq_lane_info;

/* 3 since 0.4.0; a caller built against version 2 passes 2 and gets the
 * fields up to `cap_is_default`, one built against version 1 passes 1 and
 * gets the fields up to `delayed` only. */
#define ECHOMQ_LANE_INFO_VERSION 3
#define ECHOMQ_LANE_INFO_VERSION_2 2
#define ECHOMQ_LANE_INFO_VERSION_1 1

/* One lane in detail. A lane that is unknown reports zeros (and defaults)
 * with ECHOMQ_OK: lanes exist implicitly. out->version: ECHOMQ_LANE_INFO_VERSION
 * (or 1: the version-1 fields only). Errors: EINVAL, ECONN, ETIMEOUT, ESERVER,
 * ENOPERM. */
ECHOMQ_API int echomq_lane(echomq_client *c, const char *queue, const char *group,
                           echomq_lane_info *out);

/* A page of lanes, in byte order of their names. */
typedef struct echomq_lane_list echomq_lane_list;
ECHOMQ_API size_t echomq_lane_list_count(const echomq_lane_list *l);
ECHOMQ_API const echomq_lane_info *echomq_lane_list_at(const echomq_lane_list *l, size_t i);
/* Cursor for the next page: the last group of this page, or NULL when this
 * page is the last. Owned by the list. */
ECHOMQ_API const char *echomq_lane_list_next(const echomq_lane_list *l);
ECHOMQ_API void echomq_lane_list_free(echomq_lane_list *l);

/* List up to `count` (1..10000) lanes whose names sort after `after` (NULL or
 * "" = from the start). Pages are bounded work on the server, so a queue of a
 * million lanes is walked page by page. Errors: EINVAL, ECONN, ETIMEOUT, ESERVER,
 * ENOPERM. */
ECHOMQ_API int echomq_lanes(echomq_client *c, const char *queue, const char *after,
                            size_t count, echomq_lane_list **out);

/* Dead-lettered jobs, oldest death first, `count` (1..10000) from `offset`.
 * Errors: EINVAL, ECONN, ETIMEOUT, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_dead(echomq_client *c, const char *queue, uint64_t offset,
                           size_t count, echomq_job_list **out);

/* Move dead jobs back to their lanes with a fresh attempt budget (their
 * next delivery's fencing token is still greater than every earlier one). ids: n (1..10000) job ids; ids that are not dead
 * are skipped. *redriven (may be NULL) receives how many moved. A writing
 * call. Errors: EINVAL, ECONN, ETIMEOUT, EOOM, ESERVER, ENOPERM. */
ECHOMQ_API int echomq_redrive(echomq_client *c, const char *queue, const uint64_t *ids,
                              size_t n, uint64_t *redriven);
/* Redrive every dead job (in bounded chunks, several round trips). */
ECHOMQ_API int echomq_redrive_all(echomq_client *c, const char *queue, uint64_t *redriven);

/* ------------------------------------------------------------------------ */
/* Everyday operations on jobs, lanes and queues (0.3). Each uses the client
 * handle like every call: one thread at a time. */

/* Look a job up by id (read-only, EVALSHA_RO): its state
 * (echomq_job_state_of), lane, payload, attempts (echomq_job_token: the
 * attempts so far; echomq_job_attempt), max attempts, enqueue time, lease
 * deadline / due time / time of death, and last error; since 0.4 also the
 * first-started and finished times, progress, and for a retained completed
 * job (ECHOMQ_JOB_COMPLETED, no payload) its result. *out is freed with
 * echomq_job_free. Errors: EINVAL (queue, id 0, NULL out), ENOTFOUND (no
 * such job: acked and not retained, deleted, or never existed), ECONN,
 * ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_get_job(echomq_client *c, const char *queue, uint64_t id, echomq_job **out);

/* Delete a job that is pending, delayed, dead or completed (a retained
 * outcome, 0.4): it is gone, its lane's
 * counts and ring place are fixed. A leased job is refused with
 * ECHOMQ_ELEASED (settle or let it expire first). Errors: EINVAL, ENOTFOUND,
 * ELEASED, ECONN, ETIMEOUT (unknown outcome), EOOM, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_delete_job(echomq_client *c, const char *queue, uint64_t id);

/* Purge lane `group`: delete its waiting jobs (pending and delayed; leased
 * jobs run on, dead jobs stay in the dead list) and forget its retained
 * completed jobs (0.4.0, echomq_set_retention), in bounded steps: one call
 * removes up to `max` (1..ECHOMQ_PURGE_MAX) pending jobs or looks at up to
 * `max` delayed or retained jobs of the queue (*removed counts both). *cursor is 0 on the first call and is
 * updated; *more (may be NULL) is 1 while work remains: call again with the
 * same cursor until it is 0. *removed (may be NULL) receives how many jobs
 * this call deleted. With clear_settings = 1, the call that finishes also
 * clears the lane's own weight, limit, rate, cap and pause; with 0 they stay.
 * Jobs enqueued while a purge runs may survive it.
 * Errors: EINVAL, ECONN, ETIMEOUT, EOOM, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_purge_lane(echomq_client *c, const char *queue, const char *group,
                                 uint32_t max, int clear_settings, uint64_t *cursor,
                                 uint64_t *removed, int *more);
/* Purge the whole lane, looping over echomq_purge_lane (several round
 * trips). *removed (may be NULL) receives the total. */
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
typedef struct echomq_report echomq_report;
ECHOMQ_API int echomq_queues(echomq_client *c, echomq_report **out);

/* A list of strings (verify report). */
ECHOMQ_API size_t echomq_report_count(const echomq_report *r);
ECHOMQ_API const char *echomq_report_at(const echomq_report *r, size_t i);
ECHOMQ_API void echomq_report_free(echomq_report *r);

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

/* ------------------------------------------------------------------------ */
/* Outcomes (0.4.0): what became of finished jobs, all opt-in
 * (docs/operations.md "Outcomes", docs/keys.md for the keys and the event
 * format). With none of it on, a queue pays nothing for it.
 *
 * Retention. A completed job is normally gone at its ack. With a retention,
 * its outcome is kept: state ECHOMQ_JOB_COMPLETED, lane, attempts, token,
 * enqueue time, first-started and finished times, last progress, and the
 * result it was acked with (not its payload). keep_ms (1..ECHOMQ_KEEP_MAX_MS,
 * 0 = no time bound) keeps it that long after it completed; keep_last
 * (1..ECHOMQ_KEEP_LAST_MAX, 0 = no count bound) keeps it while it is among
 * the last keep_last jobs that completed with a retention. At least one of
 * them; both bound it when both are set. It applies to jobs that complete
 * from then on. Expired outcomes are trimmed by the settling calls, a
 * bounded number per call (no daemon); a lookup never shows one. Dead jobs
 * stay in the dead list as before, now with their times and progress.
 * Errors (all four): EINVAL (names, values: nothing sent), ECONN, ETIMEOUT,
 * EOOM, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_set_retention(echomq_client *c, const char *queue, int64_t keep_ms,
                                    uint64_t keep_last);
ECHOMQ_API int echomq_clear_retention(echomq_client *c, const char *queue);

/* Events. With events on, the scripts append entries to the Valkey Stream
 * "emq:{<queue>}:events", kept near max_len (1..ECHOMQ_EVENTS_MAXLEN_MAX)
 * entries by XADD MAXLEN ~: claimed, completed, failed, dead, redriven,
 * deleted, purged, progress, setting, and with ECHOMQ_EVENTS_ENQUEUED also
 * enqueued (one entry per job: the costly one). Any client reads them with
 * XREAD / XREADGROUP; the format is public (docs/keys.md "Events"). */
#define ECHOMQ_EVENTS_ENQUEUED 1
ECHOMQ_API int echomq_set_events(echomq_client *c, const char *queue, uint64_t max_len, int flags);
ECHOMQ_API int echomq_clear_events(echomq_client *c, const char *queue);

/* Progress: a held job reports a value (0..ECHOMQ_PROGRESS_MAX bytes,
 * binary), fenced by its token like echomq_extend. It replaces the previous
 * one, shows in echomq_get_job (and in a retained outcome) and is a
 * `progress` event. Errors: EINVAL, ETOOLARGE (nothing sent), ESTALE,
 * ENOTFOUND, ECONN, ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_progress(echomq_client *c, const char *queue, uint64_t id, uint64_t token,
                               const char *value, size_t value_len);

/* Wait for job `id` to complete or die. Returns ECHOMQ_OK with *out set
 * (as echomq_get_job: ECHOMQ_JOB_COMPLETED or ECHOMQ_JOB_DEAD) at once when
 * it has, or as soon as it does; ECHOMQ_PENDING (4, not an error) with *out
 * NULL when it had not after timeout_ms (0..24 h; 0 = do not wait).
 * It blocks on the server with no polling: the waiter is counted on the
 * job, and its ack or death pushes a wake-up onto the job's own list, which
 * expires after ECHOMQ_WAIT_GRACE_MS; the outcome of a job someone waits
 * for is kept at least that long, so waiting works without a retention, but
 * only for a waiter that began before the job finished: once a job that
 * was not retained has finished, a wait gets ENOTFOUND, as a lookup does.
 * echomq_client_cancel() interrupts the wait (ECANCELED). A job deleted
 * while waited for: ENOTFOUND. Errors: EINVAL (id 0, NULL out), ENOTFOUND,
 * ECANCELED, ECONN, ETIMEOUT, ESERVER, ENOPERM, ELAYOUT. */
ECHOMQ_API int echomq_wait_job(echomq_client *c, const char *queue, uint64_t id, int64_t timeout_ms,
                               echomq_job **out);

/* Read the event stream: up to `count` (1..ECHOMQ_BATCH_MAX) entries after
 * stream id `after` ("0" = from the oldest kept, "$" = only new ones),
 * waiting up to block_ms (0 = do not wait) for one to come; cancellable like
 * echomq_wait_job. ECHOMQ_OK with *out (may hold 0 entries when none came).
 * For a group of consumers use XREADGROUP on the stream directly.
 * Errors: EINVAL, ECANCELED, ECONN, ETIMEOUT, ESERVER, ENOPERM, ESHARDS (a
 * sharded queue: read each shard queue's stream). */
typedef struct echomq_event_list echomq_event_list;
ECHOMQ_API int echomq_events_read(echomq_client *c, const char *queue, const char *after,
                                  size_t count, int64_t block_ms, echomq_event_list **out);
ECHOMQ_API size_t echomq_event_list_count(const echomq_event_list *l);
/* Entry i's stream id ("<ms>-<seq>"; pass the last one as `after`). */
ECHOMQ_API const char *echomq_event_list_id(const echomq_event_list *l, size_t i);
/* Entry i's fields: how many, and field k's name and value (*len may be
 * NULL). NULL when out of range. Owned by the list. */
ECHOMQ_API size_t echomq_event_list_nfields(const echomq_event_list *l, size_t i);
ECHOMQ_API const char *echomq_event_list_name(const echomq_event_list *l, size_t i, size_t k);
ECHOMQ_API const char *echomq_event_list_value(const echomq_event_list *l, size_t i, size_t k,
                                               size_t *len);
ECHOMQ_API void echomq_event_list_free(echomq_event_list *l);

/* ------------------------------------------------------------------------ */
/* Sharded queues (0.3.0): one queue over N shard queues, so that one hot
 * queue can use every primary of a Valkey Cluster (docs/operations.md,
 * "Sharded queues").
 *
 * A sharded queue is opened by its name like any queue: every call above
 * reads the queue's record once (then caches it per client) and routes.
 * A lane lives in the shard its group hashes to (FNV-1a of the group's
 * bytes mod N), so a lane's order, weight, limit, pause, rate and cap stay
 * per lane and every script runs in one slot. Claims rotate over the
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

/* ------------------------------------------------------------------------ */
/* Doctor: checks of the server a queue runs on. */

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

/* Topic headers. */
#include "schedules.h" /* periodic jobs */

#endif /* ECHOMQ_ECHOMQ_H */
