// The worker engine: the one worker loop of every binding. Host threads pull
// jobs (next) and report results (done / fail); inside, one pump thread
// claims in batches fused with the settlement of finished jobs, extends the
// leases of held jobs, and sleeps on the server (a second connection waits
// for a wake-up) when the queue is empty. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "router.hpp"
#include "error.hpp"

namespace echomq {

// The C API sets every field from ECHOMQ_WORKER_OPTIONS_INIT
// (echomq/worker.h), the one home of the defaults.
struct WorkerOptions {
  ClientOptions client;
  uint32_t slots = 8;     // jobs held at once, running or prefetched
  uint32_t prefetch = 0;  // jobs claimed per round trip at most (0 = slots)
  int64_t lease_ms = 30000;
  bool weighted = false;
  int64_t retry_delay_ms = kRetryBackoff;  // of a fail without its own delay
  int64_t idle_wait_ms = 5000;             // one server-side wait when idle
  // Latency-bounded prefetch: claims keep about this much handler work
  // unstarted (0 = fixed prefetch: every claim fills the free slots).
  int64_t target_wait_ms = 5;
  // Stop by itself after holding no job for this long (0 = never).
  int64_t idle_timeout_ms = 0;
  // report() returns what becomes of the job (kOk, kWillRetry, kWillDie)
  // and refuses a job whose lease was lost with kStale; else kOk and
  // kNotFound.
  bool report_outcomes = false;
};

struct WorkerStats {
  uint64_t claimed = 0, done = 0, failed = 0, extended = 0, released = 0, lost = 0;
  uint64_t round_trips = 0, errors = 0;
  uint64_t running = 0, buffered = 0;
  // What the settled fails became (failed = retried + delayed + dead).
  uint64_t retried = 0, delayed = 0, dead = 0;
  uint64_t unconfirmed = 0;  // round trips done but not confirmed durable in time
  // Lifecycle (cpp/worker_halts.cpp): jobs that settled as canceled, and
  // attempts that ran out of their time limit.
  uint64_t canceled = 0, timed_out = 0;
};

class Worker {
 public:
  // Validates everything; no I/O.
  Worker(const std::string& url, const std::string& queue, const WorkerOptions& o);
  ~Worker();  // stops (abandon) if still running
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Connects both connections and starts the pump. Throws as connect does.
  void start();
  // A job to run: false at the timeout; throws ECANCELED once stopping.
  bool next(int64_t timeout_ms, Job& out);
  // Reports a job handed out by next(). retry_delay_ms: as a settlement, or
  // kRetryDefault for the worker's policy. Throws ENOTFOUND for a job this
  // worker does not hold, ECANCELED after stop; with report_outcomes, ESTALE
  // for a job whose lease it learnt was lost while it ran.
  // result: an ack's result (0..kResultMax bytes), kept when the job's
  // outcome is retained; over kResultMax it is ETOOLARGE, or with
  // report_outcomes a result dropped. dropped: why an ack keeps no result
  // ("" = none), recorded with its outcome. cost: what the job's work cost, charged to its
  // lane in a queue's cost mode; kCostMeasured = the handler time from next()
  // to this report, in µs.
  // Returns kOk, or with report_outcomes what the settlement will do with a
  // failed job (kWillRetry, kWillDie) by the fail script's rule: dead when
  // this delivery used the last attempt of its budget or the delay is
  // kRetryDeadNow. It holds when the settlement lands (the lease still ours).
  int report(uint64_t id, uint64_t token, bool ok, int64_t retry_delay_ms, std::string reason,
             std::string result = {}, int64_t cost = kCostMeasured, std::string dropped = {});
  // drain: finish what is running (until timeout_ms) and settle it; abandon:
  // stop at once (running jobs come back by their leases). Prefetched jobs
  // go back to their lanes at once in both. Returns false when running jobs
  // were left at the timeout.
  bool stop(bool drain, int64_t timeout_ms);
  WorkerStats stats();
  // The last error of the engine's own calls ("" if none) and its status.
  std::string lastError(int* code);
  // The next job whose handler should stop (cpp/worker_halts.cpp): a job
  // handed out and still running that was canceled or ran out of its time
  // limit. false at the timeout; throws ECANCELED once the engine stopped.
  bool nextHalt(int64_t timeout_ms, uint64_t& id, uint64_t& token, int& why);

  static constexpr int64_t kRetryDefault = -4;
  static constexpr int64_t kCostMeasured = -1;

 private:
  struct Held {
    uint64_t token;
    int64_t deadline;  // local steady ms by which the lease ends at the latest
    std::string lane;
    bool last;               // this delivery used the last attempt of its budget
    int64_t startedUs = -1;  // steady µs when next() handed it out (-1: buffered); its cost's start
    std::shared_ptr<std::atomic<int>> halt;  // shared with the job handed out (Job::halt)
    int64_t timeoutAt = -1;  // steady ms its time limit runs out (-1: none)
  };
  // A running job's handler is told to stop (cpp/worker_halts.cpp).
  struct HaltNotice {
    uint64_t id, token;
    int why;
  };
  // Under mu_: job id (held as h) stops for `why` (Halt): its flag is set,
  // its lease no longer extended, a buffered one given back (the server
  // settles a canceled one as canceled), a running one's notice queued for
  // nextHalt.
  void haltJob(uint64_t id, Held& h, int why);
  // Under mu_: the running jobs whose time limit ran out by `now` are
  // halted; returns the next time one runs out (-1: none).
  int64_t haltTimedOut(int64_t now);
  // The notice thread: while the engine runs jobs it reads the queue's
  // cancel notices (XREAD BLOCK on its own connection) and halts the jobs
  // it holds that were canceled.
  void noticeLoop();
  // The loop of one pump thread, on its own connection; only the first
  // extends leases.
  void pump(Router& client, bool extender);
  // Under mu_: may a pump claim now, given the call in flight on the other
  // pump (if any)?
  bool mayClaim() const;
  // Under mu_: how many jobs the engine may hold now, running or unstarted
  // (latency-bounded prefetch; slots when fixed or not measured yet).
  uint32_t holdCap() const;
  // Under mu_: a job handed out at startedUs was reported at nowUs.
  void noteHandlerTime(int64_t startedUs, int64_t nowUs);
  // Is the prefetch deep enough for two calls in flight (and a second pump)?
  bool overlaps() const;
  void waiter();
  void recordError(const Error& e);
  // Counts a round trip that was not confirmed durable in time (why != "").
  void noteUnconfirmed(const std::string& why);
  // Under mu_: jobs held whose lease is past half its length.
  std::vector<std::pair<uint64_t, uint64_t>> dueForExtension(int64_t now);
  // Under mu_: the steady ms at which the idle timeout stops the engine
  // (-1: not idle, or no idle timeout); at or past it, starts the stop.
  int64_t idleDeadline(int64_t now);

  std::string url_, queue_;
  WorkerOptions o_;
  // Two pumps when the prefetch is deep enough (overlaps): while one call is
  // in flight, the other may send the next (see mayClaim), so the server is
  // not left idle while a reply is handled.
  Router pumpClient_, overlapClient_, waitClient_, noticeClient_;
  std::thread pumpThread_, overlapThread_, waitThread_, noticeThread_;

  std::mutex mu_;
  std::mutex joinMu_;  // stop() may run on two threads at once (drain, then abandon)
  std::condition_variable jobsCv_;   // next() waits here
  std::condition_variable pumpCv_;   // the pump waits here
  std::condition_variable waitCv_;   // the waiter waits here
  std::condition_variable haltCv_;   // nextHalt() and the notice thread wait here
  std::deque<HaltNotice> halts_;     // for nextHalt(), of jobs still held
  bool noticeDone_ = false;          // the notice thread has ended
  std::deque<Job> buffer_;           // claimed, not yet handed out
  std::unordered_map<uint64_t, Held> held_;  // every job leased to this worker
  // Handed-out jobs whose lease an extension found lost (id -> token), until
  // they are reported: report() then says so (ESTALE with report_outcomes).
  std::unordered_map<uint64_t, uint64_t> lost_;
  int64_t activeMs_ = 0;  // steady ms of the start, or of the last job claimed, handed out or reported
  std::vector<Settlement> outbox_;
  WorkerStats stats_;
  bool started_ = false, stopping_ = false, drain_ = false, finished_ = false;
  bool idle_ = false;       // the last claim found nothing: wait for a wake-up
  bool woken_ = false;      // the waiter saw a wake-up (or its wait ended)
  bool waitArmed_ = false;  // the pump asked the waiter to wait
  bool waitDone_ = false;   // the waiter thread has ended
  uint32_t claiming_ = 0;  // jobs asked for by the calls in flight (slots they may fill)
  int inFlight_ = 0;       // pump calls in flight
  int pumpsLeft_ = 0;      // pump threads still running (set by start)
  int64_t waitMs_ = 0;
  // When the last empty claim said more work falls due (steady ms; -1 none):
  // the pump claims then by its own clock, since a wait on the server ends
  // only at the server's timer resolution (1000 / hz ms, 100 by default).
  int64_t dueAt_ = -1;
  // Latency-bounded prefetch: the mean handler time (µs, moving average;
  // 0 = none measured yet), the host threads inside next() now, and the
  // most host threads seen busy or waiting at once (the handlers).
  double handlerUs_ = 0;
  uint32_t waiting_ = 0;
  uint32_t hosts_ = 0;
  int64_t backoffUntil_ = 0;
  int64_t backoffMs_ = 0;
  std::string lastError_;
  int lastCode_ = 0;
};

}  // namespace echomq
