/* claim_ack.c: the loops of claim_ack.py in C, for a like-for-like figure.
 *
 *   claim_ack_c URL QUEUE JOBS two|fused
 *
 * Claims and acks JOBS jobs from QUEUE (filled beforehand by claim_ack.py),
 * one client, and prints on one line the rate in jobs/s and the client's CPU
 * time per job in microseconds. */
#include <echomq/echomq.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int die(echomq_client *c, const char *what, int st) {
  fprintf(stderr, "claim_ack_c: %s: %s (%s)\n", what, echomq_strerror(st),
          c ? echomq_client_errmsg(c) : "");
  echomq_client_free(c);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: claim_ack_c URL QUEUE JOBS two|fused\n");
    return 2;
  }
  const char *url = argv[1], *q = argv[2];
  long jobs = strtol(argv[3], NULL, 10);
  int fused = strcmp(argv[4], "fused") == 0;
  const int64_t lease = 60000;
  echomq_client *c = echomq_client_create(NULL);
  if (c == NULL) return die(NULL, "client", ECHOMQ_ENOMEM);
  int st = echomq_client_connect(c, url);
  if (st != ECHOMQ_OK) return die(c, "connect", st);

  long done = 0;
  echomq_job *job = NULL;
  double t0 = now_s();
  clock_t cpu0 = clock();
  if (fused) {
    st = echomq_claim(c, q, lease, &job);
    while (st == ECHOMQ_OK) {
      echomq_job *next = NULL;
      ++done;
      if (done < jobs) {
        st = echomq_ack_claim(c, q, echomq_job_id(job), echomq_job_token(job), lease, &next);
      } else {
        st = echomq_ack(c, q, echomq_job_id(job), echomq_job_token(job));
        if (st == ECHOMQ_OK) st = ECHOMQ_EMPTY;
      }
      echomq_job_free(job);
      job = next;
    }
  } else {
    while (done < jobs && (st = echomq_claim(c, q, lease, &job)) == ECHOMQ_OK) {
      st = echomq_ack(c, q, echomq_job_id(job), echomq_job_token(job));
      echomq_job_free(job);
      job = NULL;
      if (st != ECHOMQ_OK) break;
      ++done;
    }
    if (st == ECHOMQ_OK) st = ECHOMQ_EMPTY;
  }
  double dt = now_s() - t0;
  double cpu = (double)(clock() - cpu0) / CLOCKS_PER_SEC;
  if (st < 0) return die(c, "loop", st);
  echomq_client_free(c);
  if (done != jobs) {
    fprintf(stderr, "claim_ack_c: expected %ld jobs, handled %ld\n", jobs, done);
    return 1;
  }
  printf("%.1f %.2f\n", (double)done / dt, cpu * 1e6 / (double)done);
  return 0;
}
