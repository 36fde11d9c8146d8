/* LD_PRELOAD shim for the clock-step fault test: shifts the wall clock
 * (CLOCK_REALTIME, gettimeofday, time) of the process it is loaded into by
 * an offset in milliseconds read from the file named by
 * $ECHOMQ_CLOCK_SHIFT_FILE, so a test can step a running valkey-server's
 * clock. The monotonic clocks are left alone. The file is read again at
 * most every 5 ms of monotonic time. Calls go to the kernel directly
 * (syscall), so the shim needs no dlsym and cannot recurse into itself. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long shift_ms;
static long long next_read_ns;

static int raw_clock(clockid_t id, struct timespec *ts) {
  return (int)syscall(SYS_clock_gettime, id, ts);
}

static long long offset_ms(void) {
  struct timespec mono;
  if (raw_clock(CLOCK_MONOTONIC, &mono) != 0) return shift_ms;
  long long now = (long long)mono.tv_sec * 1000000000LL + mono.tv_nsec;
  if (now < next_read_ns) return shift_ms;
  next_read_ns = now + 5000000LL;
  const char *path = getenv("ECHOMQ_CLOCK_SHIFT_FILE");
  if (!path) return shift_ms = 0;
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
  if (fd < 0) return shift_ms;
  char buf[32];
  long n = (long)syscall(SYS_read, fd, buf, sizeof buf - 1);
  syscall(SYS_close, fd);
  if (n <= 0) return shift_ms;
  buf[n] = '\0';
  shift_ms = strtoll(buf, NULL, 10);
  return shift_ms;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  int rc = raw_clock(id, ts);
  if (rc != 0 || (id != CLOCK_REALTIME && id != CLOCK_REALTIME_COARSE)) return rc;
  long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + offset_ms() * 1000000LL;
  ts->tv_sec = (time_t)(ns / 1000000000LL);
  ts->tv_nsec = (long)(ns % 1000000000LL);
  return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  (void)tz;
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
  {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  return 0;
}

time_t time(time_t *out) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}
