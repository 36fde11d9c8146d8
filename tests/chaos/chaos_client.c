/* The C side of the chaos workload (tests/chaos/README.md): a producer, a
 * worker engine or a plain claimer, writing every action to a history file,
 * one JSON object a line (the format is in tests/chaos/README.md).
 *
 *   echomq_chaos_client produce|engine|claim URL QUEUE HISTORY WHO SEED LANES [RATE [SCHEDULES [FEATURES]]]
 *
 * LANES: comma-separated lane names. RATE: enqueues per second (produce).
 * SCHEDULES: the run's schedules, "name|lane|every_ms|cron|missed|grace_ms|overlap"
 * joined by ';' (chaos.py, schedule_plan): a producer upserts one of them,
 * unchanged, every 2-6 s, as a process at boot would (nothing may change).
 * FEATURES: comma-separated, for a producer: "flows" (one enqueue in twenty
 * is a flow: a parent, 1-4 children, now and then a grandchild) and "life"
 * (time limits, start deadlines, cancels of its own recent jobs), as the
 * Python producer's --flows and --life.
 * Runs until SIGTERM or SIGINT: a producer stops, an engine drains, a
 * claimer settles what it holds. Each line is flushed at once, so a
 * kill -9 leaves at most a cut last line (the checker skips it). */
#define _POSIX_C_SOURCE 200809L
#include <echomq/echomq.h>

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stopping;
static FILE *hist;
static const char *who;
static unsigned long long rng;

static void on_signal(int sig) {
  (void)sig;
  stopping = 1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* xorshift64*: seeded, so a run's choices follow its seed. */
static unsigned long long next_rand(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ULL;
}

static int chance(double p) { return (double)(next_rand() % 1000000) < p * 1e6; }

/* One history line: {"ev":EV,"who":WHO,...fields}. fields: already JSON. */
static void record(const char *ev, const char *fmt, ...) {
  char body[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  fprintf(hist, "{\"ev\":\"%s\",\"who\":\"%s\",\"lang\":\"c\",%s}\n", ev, who, body);
  fflush(hist);
}

/* Lanes and payloads are the harness's own names ([A-Za-z0-9/_:-]): no
 * JSON escaping is needed. */
static void record_delivery(const echomq_job *j, const char *how, double t0, double t1) {
  size_t len = 0;
  const char *p = echomq_job_payload(j, &len);
  record("deliver",
         "\"how\":\"%s\",\"id\":%llu,\"tok\":%llu,\"att\":%u,\"max\":%u,\"lane\":\"%s\","
         "\"pl\":\"%.*s\",\"lease_until\":%lld,\"enq_at\":%lld,\"t0\":%.3f,\"t1\":%.3f",
         how, (unsigned long long)echomq_job_id(j), (unsigned long long)echomq_job_token(j),
         echomq_job_attempt(j), echomq_job_max_attempts(j), echomq_job_group(j),
         (int)(len > 200 ? 200 : len), p, (long long)echomq_job_lease_until_ms(j),
         (long long)echomq_job_enqueued_at_ms(j), t0, t1);
}

static char *lanes[64];
static int nlanes;

/* The run's schedules, parsed from SCHEDULES: the same spec every time. */
typedef struct {
  char *name, *lane, *cron;
  int64_t every_ms, grace_ms;
  int missed, overlap;
} chaos_schedule;
static chaos_schedule scheds[16];
static int nscheds;

static void split_schedules(char *s) {
  char *save = NULL;
  for (char *item = strtok_r(s, ";", &save); item && nscheds < 16; item = strtok_r(NULL, ";", &save)) {
    char *f[7] = {0};
    int n = 0;
    char *p = item;
    while (p && n < 7) {
      f[n++] = p;
      p = strchr(p, '|');
      if (p) *p++ = '\0';
    }
    if (n != 7 || p) continue; /* not seven fields: chaos.py's bug, ignored */
    chaos_schedule *d = &scheds[nscheds++];
    d->name = f[0];
    d->lane = f[1];
    d->every_ms = atoll(f[2]);
    d->cron = f[3][0] ? f[3] : NULL;
    d->missed = strcmp(f[4], "skip") == 0 ? ECHOMQ_MISSED_SKIP : ECHOMQ_MISSED_FIRE_ONCE;
    d->grace_ms = atoll(f[5]);
    d->overlap = strcmp(f[6], "skip") == 0 ? ECHOMQ_OVERLAP_SKIP : ECHOMQ_OVERLAP_FIRE;
  }
}

/* Upserts schedule d unchanged (the history's `upsert` line: changed must
 * be 0, ECHOMQ_SCHEDULE_UNCHANGED). */
static void upsert_schedule(echomq_client *c, const char *queue, const chaos_schedule *d) {
  echomq_schedule_options o = ECHOMQ_SCHEDULE_OPTIONS_INIT;
  char payload[160];
  int n = snprintf(payload, sizeof payload, "tick:%s", d->name);
  o.every_ms = d->every_ms;
  o.cron = d->cron;
  o.lane = d->lane;
  o.payload = payload;
  o.payload_len = (size_t)n;
  o.missed = d->missed;
  o.grace_ms = d->grace_ms;
  o.overlap = d->overlap;
  int changed = -1;
  int64_t next = 0;
  double t0 = now_ms();
  int rc = echomq_schedule_upsert(c, queue, d->name, &o, &changed, &next);
  record("upsert", "\"name\":\"%s\",\"rc\":%d,\"changed\":%d,\"next\":%lld,\"t0\":%.3f,\"t1\":%.3f", d->name,
         rc, changed, (long long)next, t0, now_ms());
}

static void split_lanes(char *s) {
  for (char *tok = strtok(s, ","); tok && nlanes < 64; tok = strtok(NULL, ",")) lanes[nlanes++] = tok;
}

static int with_flows, with_life;

/* Enqueues a flow in one call, as the Python producer's enqueue_flow: a
 * parent "p" with 1-4 children on random lanes, now and then a grandchild
 * "g0" under "c0", each child's on_fail drawn (fail twice as often). One
 * `flow` line (each job's name, id and parent), then an `enq` line a job. */
static void enqueue_flow(echomq_client *c, const char *queue, unsigned long long seq) {
  static const int on_fail[4] = {ECHOMQ_FLOW_FAIL, ECHOMQ_FLOW_FAIL, ECHOMQ_FLOW_IGNORE, ECHOMQ_FLOW_CONTINUE};
  char names[6][4], parents[6][4], payloads[6][96];
  const char *lane_of[6];
  int n = 0, kids = 1 + (int)(next_rand() % 4);
  for (int i = 0; i <= kids; ++i, ++n) {
    snprintf(names[n], sizeof names[n], i == 0 ? "p" : "c%d", i - 1);
    snprintf(parents[n], sizeof parents[n], "%s", i == 0 ? "" : "p");
  }
  if (chance(0.3)) {
    snprintf(names[n], sizeof names[n], "g0");
    snprintf(parents[n++], sizeof parents[0], "c0");
  }
  echomq_flow *f = echomq_flow_create();
  if (!f) return;
  int rc = ECHOMQ_OK;
  for (int i = 0; i < n; ++i) lane_of[i] = lanes[next_rand() % (unsigned)nlanes];
  for (int i = 0; i < n && rc == ECHOMQ_OK; ++i) {
    int len = snprintf(payloads[i], sizeof payloads[i], "%s:f%llu:%s", who, seq, names[i]);
    rc = echomq_flow_add(f, names[i], parents[i], on_fail[next_rand() % 4], NULL, lane_of[i], payloads[i],
                         (size_t)len);
  }
  double t0 = now_ms();
  if (rc == ECHOMQ_OK) rc = echomq_enqueue_flow(c, queue, f, 0);
  double t1 = now_ms();
  char jobs[1024];
  size_t at = 0;
  for (int i = 0; i < n && at < sizeof jobs; ++i)
    at += (size_t)snprintf(jobs + at, sizeof jobs - at, "%s[\"%s\",%llu,\"%s\"]", i ? "," : "", names[i],
                           (unsigned long long)(rc == ECHOMQ_OK ? echomq_flow_id(f, (size_t)i) : 0), parents[i]);
  record("flow", "\"seq\":%llu,\"rc\":%d,\"jobs\":[%s],\"t0\":%.3f,\"t1\":%.3f", seq, rc, jobs, t0, t1);
  for (int i = 0; i < n; ++i)
    record("enq",
           "\"seq\":%llu,\"lane\":\"%s\",\"pl\":\"%s\",\"id\":%llu,\"rc\":%d,\"delay\":0,\"max\":0,"
           "\"flow\":\"%s\",\"t0\":%.3f,\"t1\":%.3f",
           seq, lane_of[i], payloads[i], (unsigned long long)(rc == ECHOMQ_OK ? echomq_flow_id(f, (size_t)i) : 0),
           rc, names[i], t0, t1);
  echomq_flow_free(f);
}

/* The producer's recent acknowledged plain enqueues (a ring): what it may
 * cancel. */
#define RECENT 20
static struct {
  uint64_t id;
  char pl[128];
} recent[RECENT];
static int nrecent, recent_at;

/* Cancels one recent job, whatever it is doing (waiting, delayed, running,
 * finished), now and then removing it: a `cancel` line, as the Python
 * producer's cancel_one (state: what the job was, "" when refused). */
static void cancel_one(echomq_client *c, const char *queue) {
  static const char *const states[] = {"", "pending", "leased", "delayed", "dead", "completed"};
  int i = (int)(next_rand() % (unsigned)nrecent), was = 0, remove = chance(0.2);
  double t0 = now_ms();
  int rc = echomq_cancel(c, queue, recent[i].id, "chaos", remove ? ECHOMQ_CANCEL_REMOVE : 0, &was);
  double t1 = now_ms();
  record("cancel", "\"id\":%llu,\"pl\":\"%s\",\"remove\":%d,\"rc\":%d,\"state\":\"%s\",\"t0\":%.3f,"
         "\"t1\":%.3f", (unsigned long long)recent[i].id, recent[i].pl, remove, rc,
         rc == ECHOMQ_OK && was >= 0 && was <= 5 ? states[was] : "", t0, t1);
}

static int produce(echomq_client *c, const char *queue, double rate) {
  long gap_us = rate > 0 ? (long)(1e6 / rate) : 10000;
  double next_upsert = now_ms() + 2000 + (double)(next_rand() % 4000);
  for (unsigned long long seq = 1; !stopping; ++seq) {
    if (nscheds > 0 && now_ms() >= next_upsert) {
      upsert_schedule(c, queue, &scheds[next_rand() % (unsigned)nscheds]);
      next_upsert = now_ms() + 2000 + (double)(next_rand() % 4000);
    }
    if (with_flows && chance(0.05)) {
      enqueue_flow(c, queue, seq);
      continue;
    }
    if (with_life && nrecent > 0 && chance(0.04)) cancel_one(c, queue);
    const char *lane = lanes[next_rand() % (unsigned)nlanes];
    echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    if (chance(0.1)) o.delay_ms = (int64_t)(next_rand() % 1500);
    if (chance(0.3)) o.max_attempts = (uint32_t)(1 + next_rand() % 4);
    /* As the Python producer's life_options: a time limit of 50 ms-1 s, a
     * start deadline 0.1-3 s after the job is due (a fifth dropped). */
    if (with_life && chance(0.1)) o.timeout_ms = 50 + (int64_t)(next_rand() % 951);
    if (with_life && chance(0.1)) {
      o.ttl_ms = o.delay_ms + 100 + (int64_t)(next_rand() % 2901);
      if (chance(0.2)) o.expire_flags = ECHOMQ_EXPIRE_DROP;
    }
    char payload[128];
    int n = snprintf(payload, sizeof payload, "%s:%llu", who, seq);
    uint64_t id = 0;
    double t0 = now_ms();
    int rc = echomq_enqueue(c, queue, lane, payload, (size_t)n, &o, &id);
    double t1 = now_ms();
    record("enq",
           "\"seq\":%llu,\"lane\":\"%s\",\"pl\":\"%s\",\"id\":%llu,\"rc\":%d,\"delay\":%lld,"
           "\"max\":%u,\"timeout\":%lld,\"ttl\":%lld,\"drop\":%u,\"t0\":%.3f,\"t1\":%.3f",
           seq, lane, payload, (unsigned long long)(rc == ECHOMQ_OK ? id : 0), rc,
           (long long)o.delay_ms, o.max_attempts, (long long)o.timeout_ms, (long long)o.ttl_ms, o.expire_flags,
           t0, t1);
    if (rc == ECHOMQ_OK) {
      recent[recent_at].id = id;
      snprintf(recent[recent_at].pl, sizeof recent[recent_at].pl, "%s", payload);
      recent_at = (recent_at + 1) % RECENT;
      if (nrecent < RECENT) ++nrecent;
    }
    if (rc < 0) sleep_ms(20);  // a refused or failed call: back off a little
    long us = gap_us / 2 + (long)(next_rand() % (unsigned long long)(gap_us + 1));
    sleep_ms(us / 1000);
  }
  return 0;
}

static int engine(const char *url, const char *queue) {
  echomq_worker_options o;
  echomq_worker_options_init(&o, ECHOMQ_WORKER_OPTIONS_VERSION);
  o.slots = 8;
  o.lease_ms = 3000;
  o.retry_delay_ms = 300;
  o.idle_wait_ms = 1000;
  o.connect_timeout_ms = 1000;
  o.command_timeout_ms = 3000;
  o.report_outcomes = 1;
  o.weighted = 1; /* weighted turns (wclaim), as the Python claimer's wclaim */
  echomq_worker *w = NULL;
  int rc = ECHOMQ_ECONN;
  /* The server may be down or failing over while the engine starts: try
   * until it answers, as the Python and Go workloads do. */
  while (!stopping && rc != ECHOMQ_OK) {
    echomq_worker_free(w);
    w = NULL;
    if (echomq_worker_new(&w, url, queue, &o) != ECHOMQ_OK) return 2;
    rc = echomq_worker_start(w);
    if (rc != ECHOMQ_OK) sleep_ms(200);
  }
  if (rc != ECHOMQ_OK) {
    echomq_worker_free(w);
    return 0;
  }
  while (!stopping) {
    echomq_job *j = NULL;
    double t0 = now_ms();
    rc = echomq_worker_next(w, 200, &j);
    if (rc == ECHOMQ_EMPTY) continue;
    if (rc != ECHOMQ_OK) break;
    record_delivery(j, "engine", t0, now_ms());
    /* Now and then a slow job (0.2-1 s): a stale holder's settlement then
     * meets a job that another holder still holds. */
    sleep_ms(chance(0.05) ? 200 + (long)(next_rand() % 800) : (long)(next_rand() % 15));
    /* What the engine told the handler while it worked (canceled, or out of
     * its time limit), recorded; the report below goes as if it had not
     * looked: the engine must not let it count (rules_life.py). */
    int halted = echomq_job_halted(j);
    if (halted)
      record("halted", "\"id\":%llu,\"tok\":%llu,\"why\":\"%s\",\"t1\":%.3f",
             (unsigned long long)echomq_job_id(j), (unsigned long long)echomq_job_token(j),
             halted == ECHOMQ_HALT_TIMED_OUT ? "timed out" : "canceled", now_ms());
    const char *op = "ack";
    double s0 = now_ms();
    if (chance(0.08)) {
      op = "fail";
      rc = echomq_worker_fail(w, j, "chaos: a failed attempt", ECHOMQ_RETRY_DEFAULT);
    } else if (chance(0.02)) {
      op = "discard";
      rc = echomq_worker_discard(w, j, "chaos: discarded");
    } else {
      char result[96];
      int n = snprintf(result, sizeof result, "%s:%llu", who, (unsigned long long)echomq_job_token(j));
      rc = echomq_worker_done_result(w, j, result, (size_t)n);
    }
    record("report", "\"op\":\"%s\",\"id\":%llu,\"tok\":%llu,\"rc\":%d,\"t0\":%.3f,\"t1\":%.3f", op,
           (unsigned long long)echomq_job_id(j), (unsigned long long)echomq_job_token(j), rc, s0,
           now_ms());
    echomq_job_free(j);
  }
  echomq_worker_stop(w, ECHOMQ_STOP_DRAIN, 5000);
  echomq_worker_free(w);
  return 0;
}

/* A plain claimer: claim, work, settle by hand; now and then it holds a job
 * past its lease, so its settlement must be refused as stale, and now and
 * then its job is canceled while it holds it. */
static int claim_loop(echomq_client *c, const char *queue) {
  const int64_t lease = 2000;
  while (!stopping) {
    echomq_job *j = NULL;
    double t0 = now_ms();
    int rc = echomq_claim(c, queue, lease, &j);
    double t1 = now_ms();
    if (rc == ECHOMQ_EMPTY) {
      sleep_ms(20);
      continue;
    }
    if (rc != ECHOMQ_OK) {
      record("claim_err", "\"rc\":%d,\"t0\":%.3f,\"t1\":%.3f", rc, t0, t1);
      sleep_ms(50);
      continue;
    }
    record_delivery(j, "claim", t0, t1);
    uint64_t id = echomq_job_id(j), tok = echomq_job_token(j);
    /* 10 %: held up to 1 s past its lease, while another holder may have it. */
    sleep_ms(chance(0.1) ? (long)(lease + (long)(next_rand() % 1000)) : (long)(next_rand() % 10));
    /* 3 %: the job is canceled while this claimer holds it (a running
     * job's cancel, cooperative: the claimer still settles it, and the job
     * must end canceled whatever the settlement says). */
    if (with_life && chance(0.03)) {
      int was = 0;
      double c0 = now_ms();
      int crc = echomq_cancel(c, queue, id, "chaos", 0, &was);
      size_t plen = 0;
      const char *pl = echomq_job_payload(j, &plen);
      record("cancel", "\"id\":%llu,\"pl\":\"%.*s\",\"remove\":0,\"rc\":%d,\"state\":\"%s\",\"t0\":%.3f,"
             "\"t1\":%.3f", (unsigned long long)id, (int)(plen > 120 ? 120 : plen), pl, crc,
             crc != ECHOMQ_OK ? "" : was == ECHOMQ_JOB_LEASED ? "leased" : was == ECHOMQ_JOB_PENDING ? "pending"
             : was == ECHOMQ_JOB_DELAYED ? "delayed" : "dead", c0, now_ms());
    }
    const char *op;
    int outcome = 0;
    double s0 = now_ms();
    if (chance(0.08)) {
      op = "fail";
      rc = echomq_fail(c, queue, id, tok, "chaos: a failed attempt", 0, &outcome);
    } else {
      op = "ack";
      char result[96];
      int n = snprintf(result, sizeof result, "%s:%llu", who, (unsigned long long)tok);
      rc = echomq_ack_result(c, queue, id, tok, result, (size_t)n);
    }
    record("settle", "\"op\":\"%s\",\"id\":%llu,\"tok\":%llu,\"rc\":%d,\"outcome\":%d,\"t0\":%.3f,\"t1\":%.3f",
           op, (unsigned long long)id, (unsigned long long)tok, rc, outcome, s0, now_ms());
    echomq_job_free(j);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 8) {
    fprintf(stderr, "usage: %s produce|engine|claim URL QUEUE HISTORY WHO SEED LANES [RATE [SCHEDULES]]\n",
            argv[0]);
    return 2;
  }
  const char *mode = argv[1], *url = argv[2], *queue = argv[3];
  who = argv[5];
  rng = strtoull(argv[6], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
  split_lanes(argv[7]);
  double rate = argc > 8 ? atof(argv[8]) : 50;
  if (argc > 9) split_schedules(argv[9]);
  if (argc > 10) {
    with_flows = strstr(argv[10], "flows") != NULL;
    with_life = strstr(argv[10], "life") != NULL;
  }
  if (nlanes == 0) return 2;
  hist = fopen(argv[4], "a");
  if (!hist) return 2;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  record("start", "\"mode\":\"%s\",\"pid\":%ld,\"t1\":%.3f", mode, (long)getpid(), now_ms());
  int rc = 0;
  if (strcmp(mode, "engine") == 0) {
    rc = engine(url, queue);
  } else {
    echomq_client_options co = ECHOMQ_CLIENT_OPTIONS_INIT;
    co.connect_timeout_ms = 1000;
    co.command_timeout_ms = 2000;
    echomq_client *c = NULL;
    if (echomq_client_new(&c, &co) != ECHOMQ_OK) return 2;
    /* The server may be down while a process starts: try until it answers. */
    while (!stopping && echomq_client_connect(c, url) != ECHOMQ_OK) sleep_ms(200);
    if (strcmp(mode, "produce") == 0) rc = produce(c, queue, rate);
    else if (strcmp(mode, "claim") == 0) rc = claim_loop(c, queue);
    else rc = 2;
    echomq_client_free(c);
  }
  record("stop", "\"rc\":%d,\"t1\":%.3f", rc, now_ms());
  fclose(hist);
  return rc;
}
