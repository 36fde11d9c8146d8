/*
 * smoke.c: the library used from plain C99 (built with -pedantic -Werror).
 * Connects to the test server ($ECHOMQ_TEST_URL, or the first line of the
 * file named by $ECHOMQ_TEST_URL_FILE), enqueues two jobs on two lanes,
 * claims and acks them, and checks the queue with echomq_verify.
 * Exit status 0 on success, 1 with a message on stderr otherwise.
 */
#include <echomq/echomq.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures = 0;

#define EXPECT(cond)                                                        \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "smoke.c:%d: expected %s\n", __LINE__, #cond);        \
      ++failures;                                                           \
    }                                                                       \
  } while (0)

/* Reports a failed call with the client's message; returns nonzero on failure. */
static int check_call(echomq_client *c, int rc, int expected, const char *what) {
  if (rc == expected) return 0;
  fprintf(stderr, "smoke.c: %s -> %d (%s): %s\n", what, rc, echomq_strerror(rc),
          c ? echomq_client_errmsg(c) : "");
  ++failures;
  return 1;
}

/* The server URL, in a static buffer; NULL if none is configured. */
static const char *test_url(void) {
  static char url[512];
  const char *env = getenv("ECHOMQ_TEST_URL");
  const char *file = getenv("ECHOMQ_TEST_URL_FILE");
  FILE *f;
  size_t n;
  if (env != NULL && env[0] != '\0') return env;
  if (file == NULL) return NULL;
  f = fopen(file, "r");
  if (f == NULL) return NULL;
  if (fgets(url, sizeof url, f) == NULL) url[0] = '\0';
  fclose(f);
  n = strlen(url);
  while (n > 0 && (url[n - 1] == '\n' || url[n - 1] == '\r')) url[--n] = '\0';
  return n > 0 ? url : NULL;
}

int main(void) {
  char queue[64];
  const char *url = test_url();
  echomq_client_options opts = ECHOMQ_CLIENT_OPTIONS_INIT;
  echomq_client *c = NULL;
  echomq_job *job = NULL;
  echomq_report *report = NULL;
  echomq_queue_stats stats;
  uint64_t first = 0, second = 0;
  size_t len = 0;
  size_t i;
  const char *payload;

  if (url == NULL) {
    fprintf(stderr, "smoke.c: set ECHOMQ_TEST_URL or ECHOMQ_TEST_URL_FILE\n");
    return 1;
  }
  EXPECT(echomq_version() == ECHOMQ_VERSION_NUMBER);
  /* A queue name of its own, also on a server that outlives one run. */
  sprintf(queue, "smoke-c.%lu.%lu", (unsigned long)time(NULL), (unsigned long)clock());
  EXPECT(echomq_check_queue_name(queue) == ECHOMQ_OK);

  if (check_call(NULL, echomq_client_new(&c, &opts), ECHOMQ_OK, "echomq_client_new")) return 1;
  if (check_call(c, echomq_client_connect(c, url), ECHOMQ_OK, "echomq_client_connect")) {
    echomq_client_free(c);
    return 1;
  }

  check_call(c, echomq_enqueue(c, queue, "tenant-a", "hello", 5, NULL, &first), ECHOMQ_OK,
             "enqueue tenant-a");
  check_call(c, echomq_enqueue(c, queue, "tenant-b", "bin\0ary", 7, NULL, &second), ECHOMQ_OK,
             "enqueue tenant-b");
  EXPECT(first > 0 && second > first);

  /* The ring serves tenant-a, then tenant-b. */
  if (!check_call(c, echomq_claim(c, queue, 30000, &job), ECHOMQ_OK, "claim 1")) {
    payload = echomq_job_payload(job, &len);
    EXPECT(echomq_job_id(job) == first);
    EXPECT(strcmp(echomq_job_group(job), "tenant-a") == 0);
    EXPECT(len == 5 && memcmp(payload, "hello", 5) == 0);
    EXPECT(echomq_job_attempt(job) == 1);
    EXPECT(echomq_job_token(job) >= 1 && echomq_job_token(job) <= (uint64_t)ECHOMQ_ID_MAX);
    check_call(c, echomq_ack(c, queue, echomq_job_id(job), echomq_job_token(job)), ECHOMQ_OK,
               "ack 1");
    echomq_job_free(job);
    job = NULL;
  }
  if (!check_call(c, echomq_claim(c, queue, 30000, &job), ECHOMQ_OK, "claim 2")) {
    payload = echomq_job_payload(job, &len);
    EXPECT(echomq_job_id(job) == second);
    EXPECT(strcmp(echomq_job_group(job), "tenant-b") == 0);
    EXPECT(len == 7 && memcmp(payload, "bin\0ary", 7) == 0);
    check_call(c, echomq_ack(c, queue, echomq_job_id(job), echomq_job_token(job)), ECHOMQ_OK,
               "ack 2");
    echomq_job_free(job);
    job = NULL;
  }
  check_call(c, echomq_claim(c, queue, 30000, &job), ECHOMQ_EMPTY, "claim on an empty queue");
  EXPECT(job == NULL);

  memset(&stats, 0, sizeof stats);
  stats.version = ECHOMQ_QUEUE_STATS_VERSION;
  if (!check_call(c, echomq_stats(c, queue, &stats), ECHOMQ_OK, "stats")) {
    EXPECT(stats.enqueued_total == 2);
    EXPECT(stats.acked_total == 2);
    EXPECT(stats.pending == 0 && stats.leased == 0);
  }
  if (!check_call(c, echomq_verify(c, queue, &report), ECHOMQ_OK, "verify")) {
    for (i = 0; i < echomq_report_count(report); ++i) {
      fprintf(stderr, "smoke.c: violation: %s\n", echomq_report_at(report, i));
    }
    EXPECT(echomq_report_count(report) == 0);
    echomq_report_free(report);
  }

  echomq_client_free(c);
  if (failures == 0) printf("smoke.c: ok (queue %s)\n", queue);
  return failures == 0 ? 0 : 1;
}
