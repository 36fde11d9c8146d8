/*
 * echomq/client.h — the client: one connection to one Valkey server.
 * A topic of the C API of libechomq (echomq/echomq.h includes them all); its
 * conventions, statuses and limits are in echomq/common.h.
 */
#ifndef ECHOMQ_CLIENT_H
#define ECHOMQ_CLIENT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A client handle is one connection to one server (and, in a cluster, one
 * per primary). One thread at a time uses it; echomq_client_cancel is the
 * one call another thread may make meanwhile. Every call on the handle
 * records its status and message for echomq_client_errmsg. */

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

/* The one way to read an error, for a client as for a worker engine
 * (echomq_worker_last_error has the same shape): copies the message of the
 * last call on c ("" after a success) into buf, cut to cap - 1 bytes and
 * NUL-terminated (buf may be NULL when cap is 0), and returns its status
 * (ECHOMQ_EINVAL for a NULL handle). Defined here over echomq_client_errmsg
 * and echomq_client_errcode, so it adds no symbol to the library. Same
 * thread rules as any call on c. */
static inline int echomq_client_last_error(const echomq_client *c, char *buf, size_t cap) {
  const char *m = echomq_client_errmsg(c);
  size_t n = 0;
  if (buf != NULL && cap > 0) {
    while (n + 1 < cap && m[n] != '\0') {
      buf[n] = m[n];
      ++n;
    }
    buf[n] = '\0';
  }
  return echomq_client_errcode(c);
}

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

#ifdef __cplusplus
}
#endif

#endif /* ECHOMQ_CLIENT_H */
