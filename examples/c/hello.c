/* The smallest EchoMQ program: enqueue a job, claim it, ack it.
 *   ./build/examples/hello [valkey://127.0.0.1:6379]                    */
#include <echomq/echomq.h>
#include <stdio.h>
#include <string.h>

static int check(echomq_client *c, int st, const char *what) {
  if (st < 0) {
    fprintf(stderr, "%s: %s (%s)\n", what, echomq_client_errmsg(c), echomq_strerror(st));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *url = argc > 1 ? argv[1] : "valkey://127.0.0.1:6379";
  echomq_client *c = NULL;
  echomq_job *job = NULL;
  uint64_t id = 0;
  const char *payload = "hello, lanes";
  int rc = 1;

  if (echomq_client_new(&c, NULL) != ECHOMQ_OK) return 1;
  if (check(c, echomq_client_connect(c, url), "connect")) goto out;
  if (check(c, echomq_enqueue(c, "hello", "tenant-a", payload, strlen(payload), NULL, &id),
            "enqueue"))
    goto out;
  if (check(c, echomq_claim(c, "hello", 30000, &job), "claim") || job == NULL) goto out;
  printf("claimed job %llu from lane %s: %.*s (token %llu)\n",
         (unsigned long long)echomq_job_id(job), echomq_job_group(job),
         (int)echomq_job_payload_len(job), echomq_job_payload(job, NULL),
         (unsigned long long)echomq_job_token(job));
  if (check(c, echomq_ack(c, "hello", echomq_job_id(job), echomq_job_token(job)), "ack")) goto out;
  printf("acked\n");
  rc = 0;
out:
  echomq_job_free(job);
  echomq_client_free(c);
  return rc;
}
