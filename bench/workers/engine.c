/* Drains N jobs through the C worker engine with T host threads and a
 * no-op handler; the baseline of bench/workers/run.sh.
 *
 *   engine URL QUEUE N THREADS SLOTS   -> prints "jobs_per_s <rate>"
 *   engine enqueue URL QUEUE N         -> N jobs over 100 lanes, 1,000 per call
 *
 * The queue must hold N jobs already (run.sh enqueues them with this
 * program, so the runs do not depend on the Python package for that). */
#include <echomq/echomq.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static echomq_worker *worker;
static atomic_long done_jobs;
static long total;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double deadline;

static double now_s(void);

static void *host(void *arg) {
  (void)arg;
  while (atomic_load(&done_jobs) < total && now_s() < deadline) {
    echomq_job *j = NULL;
    int rc = echomq_worker_next(worker, 100, &j);
    if (rc == ECHOMQ_ECANCELED) break;
    if (rc != ECHOMQ_OK) continue;
    if (echomq_worker_done(worker, j) == ECHOMQ_OK) atomic_fetch_add(&done_jobs, 1);
    echomq_job_free(j);
  }
  return NULL;
}

static int enqueue(const char *url, const char *queue, long n) {
  echomq_client *c = echomq_client_create(NULL);
  echomq_batch *b = echomq_batch_create();
  int rc = c && b ? echomq_client_connect(c, url) : ECHOMQ_ENOMEM;
  char group[16];
  for (long i = 0; rc == ECHOMQ_OK && i < n; i++) {
    snprintf(group, sizeof group, "L%ld", i % 100);
    rc = echomq_batch_add(b, group, "xxxxxxxxxxxxxxxxxxxx", 20);
    if (rc == ECHOMQ_OK && (echomq_batch_count(b) == 1000 || i == n - 1)) {
      rc = echomq_enqueue_batch(c, queue, b, NULL);
      echomq_batch_clear(b);
    }
  }
  if (rc != ECHOMQ_OK) fprintf(stderr, "enqueue: %s\n", c ? echomq_client_errmsg(c) : "no memory");
  echomq_batch_free(b);
  echomq_client_free(c);
  return rc == ECHOMQ_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "enqueue") == 0) return enqueue(argv[2], argv[3], atol(argv[4]));
  if (argc != 6 && argc != 7) {
    fprintf(stderr, "usage: engine URL QUEUE N THREADS SLOTS [TARGET_WAIT_MS]\n");
    return 2;
  }
  total = atol(argv[3]);
  int threads = atoi(argv[4]);
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = (unsigned)atoi(argv[5]);
  if (argc == 7) o.target_wait_ms = atoi(argv[6]); /* 0 = fixed prefetch */
  int rc = echomq_worker_new(&worker, argv[1], argv[2], &o);
  if (rc != ECHOMQ_OK) {
    fprintf(stderr, "worker_new: %s\n", echomq_strerror(rc));
    return 1;
  }
  double t0 = now_s();
  deadline = t0 + 300;  /* a stuck run ends with an error instead of hanging */
  rc = echomq_worker_start(worker);
  if (rc != ECHOMQ_OK) {
    fprintf(stderr, "worker_start: %s\n", echomq_strerror(rc));
    return 1;
  }
  pthread_t *ts = calloc((size_t)threads, sizeof *ts);
  for (int i = 0; i < threads; i++) pthread_create(&ts[i], NULL, host, NULL);
  for (int i = 0; i < threads; i++) pthread_join(ts[i], NULL);
  /* The stop's drain settles the last acks, as in the Python and Go runs. */
  echomq_worker_stop(worker, ECHOMQ_STOP_DRAIN, 10000);
  double secs = now_s() - t0;
  char msg[256];
  int last = echomq_worker_last_error(worker, msg, sizeof msg);
  echomq_worker_free(worker);
  if (atomic_load(&done_jobs) < total) {
    fprintf(stderr, "drained %ld of %ld jobs in 300 s (last error %d: %s)\n", atomic_load(&done_jobs),
            total, last, msg);
    return 1;
  }
  free(ts);
  printf("jobs_per_s %.0f\n", (double)total / secs);
  return 0;
}
