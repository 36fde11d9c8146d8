#include "worker.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "clock.hpp"
#include "error.hpp"
#include "url.hpp"
#include "validate.hpp"

namespace echomq {
namespace {

std::chrono::steady_clock::time_point at(int64_t ms) {
  return std::chrono::steady_clock::time_point(std::chrono::milliseconds(ms));
}

constexpr int64_t kBackoffFirstMs = 100;
constexpr int64_t kBackoffMaxMs = 5000;
// When the second pump may send a call while one is in flight (mayClaim).
constexpr uint32_t kOverlapFrom = 32;
constexpr uint32_t kOverlapMax = 64;
// A claim goes out once 1/kClaimAt of the prefetch is free (or the buffer
// is empty): at a half, two calls in flight at 32 slots left the server idle
// while the host turned a whole batch around (docs/architecture.md).
constexpr uint32_t kClaimAt = 3;
// Weight of one new handler time in its moving average: recent enough to
// follow a change of workload within a few jobs, smooth enough that one
// slow job does not empty the buffer.
constexpr double kHandlerWeight = 1.0 / 8;

}  // namespace

Worker::Worker(const std::string& url, const std::string& queue, const WorkerOptions& o)
    : url_(url),
      queue_(queue),
      o_(o),
      pumpClient_(o.client),
      overlapClient_(o.client),
      waitClient_(o.client),
      noticeClient_(o.client) {
  checkQueueName(queue.c_str());
  checkRange("slots", o.slots, 1, kBatchMax);
  if (o_.prefetch == 0) o_.prefetch = o_.slots;
  checkRange("prefetch", o_.prefetch, 1, o_.slots);
  checkRange("lease_ms", o.lease_ms, 1, kLeaseMaxMs);
  checkRange("idle_wait_ms", o.idle_wait_ms, 1, kWaitMaxMs);
  checkRange("target_wait_ms", o.target_wait_ms, 0, kTargetWaitMaxMs);
  checkRange("idle_timeout_ms", o.idle_timeout_ms, 0, kWaitMaxMs);
  if (o.retry_delay_ms != kRetryBackoff && o.retry_delay_ms != kRetryDeadNow)
    checkRange("retry_delay_ms", o.retry_delay_ms, 0, kDelayMaxMs);
  // A bad URL, or a TLS file that cannot be read, is refused here, before any I/O.
  Endpoint ep = parseUrl(url);
  mergeTls(ep.tls, o.client.tls);
  if (ep.tls.on) tlsContext(ep.tls);
}

Worker::~Worker() {
  try {
    stop(false, 0);
  } catch (...) {
  }
}

void Worker::start() {
  std::lock_guard<std::mutex> lk(mu_);
  if (started_) invalid("worker already started");
  try {
    pumpClient_.connect(url_);
    if (overlaps()) overlapClient_.connect(url_);
    waitClient_.connect(url_);
  } catch (const Error& e) {
    // Kept for echomq_worker_last_error: the status alone does not say why.
    lastError_ = e.what();
    lastCode_ = e.code();
    throw;
  }
  started_ = true;
  activeMs_ = steadyMs();
  pumpThread_ = std::thread([this] { pump(pumpClient_, true); });
  // A second pump only where it may overlap (mayClaim): otherwise it would
  // only wake on every report and find nothing to send.
  pumpsLeft_ = overlaps() ? 2 : 1;
  if (overlaps()) overlapThread_ = std::thread([this] { pump(overlapClient_, false); });
  waitThread_ = std::thread([this] { waiter(); });
  noticeThread_ = std::thread([this] { noticeLoop(); });  // connects once a job runs
}

bool Worker::next(int64_t timeout_ms, Job& out) {
  checkRange("timeout_ms", timeout_ms, 0, kWaitMaxMs);
  std::unique_lock<std::mutex> lk(mu_);
  if (!started_) invalid("worker not started");
  // The handlers: host threads running a job or asking for one.
  ++waiting_;
  hosts_ = std::max<uint32_t>(hosts_, waiting_ + static_cast<uint32_t>(held_.size() - buffer_.size()));
  jobsCv_.wait_until(lk, at(steadyMs() + timeout_ms),
                     [&] { return !buffer_.empty() || stopping_ || finished_; });
  --waiting_;
  if (stopping_ || finished_) fail(kCanceled, "the worker is stopping");
  if (buffer_.empty()) return false;
  out = std::move(buffer_.front());
  buffer_.pop_front();
  auto h = held_.find(out.id);
  const int64_t nowUs = steadyUs();
  if (h != held_.end()) h->second.startedUs = nowUs;
  activeMs_ = nowUs / 1000;
  pumpCv_.notify_one();  // room in the buffer: time to claim more
  if (held_.size() - buffer_.size() == 1) haltCv_.notify_all();  // the notice thread reads from now
  return true;
}

int Worker::report(uint64_t id, uint64_t token, bool ok, int64_t retry_delay_ms,
                   std::string reason, std::string result, int64_t cost, std::string dropped) {
  if (result.size() > kResultMax) {
    std::string why = "result of " + std::to_string(result.size()) + " bytes is over ECHOMQ_RESULT_MAX (" +
                      std::to_string(kResultMax) + ")";
    // The job succeeded: with report_outcomes its result is dropped, never
    // turned into a failed attempt that would run the handler again.
    if (!o_.report_outcomes) fail(kTooLarge, why);
    result.clear();
    dropped = std::move(why);
  }
  if (dropped.size() > kReasonMax) dropped.resize(kReasonMax);
  if (cost != kCostMeasured) checkRange("cost", cost, 0, kIdMax);
  if (!ok && retry_delay_ms != kRetryDefault && retry_delay_ms != kRetryBackoff &&
      retry_delay_ms != kRetryDeadNow)
    checkRange("retry_delay_ms", retry_delay_ms, 0, kDelayMaxMs);
  if (reason.size() > kReasonMax) reason.resize(kReasonMax);
  std::lock_guard<std::mutex> lk(mu_);
  if (finished_) fail(kCanceled, "the worker has stopped; the job comes back when its lease expires");
  auto it = held_.find(id);
  if (it == held_.end() || it->second.token != token) {
    auto lost = lost_.find(id);
    if (lost != lost_.end() && lost->second == token) {
      lost_.erase(lost);
      fail(o_.report_outcomes ? kStale : kNotFound,
           "job " + std::to_string(id) + ": its lease was lost while it ran (an extension was refused); " +
               "it may run elsewhere");
    }
    fail(kNotFound, "job " + std::to_string(id) + " is not held by this worker (reported already, or never handed out)");
  }
  const int64_t startedUs = it->second.startedUs;
  const int64_t nowUs = steadyUs();  // one clock read for the handler time, the cost and the idle timer
  // A job told to stop: canceled, it settles as canceled whatever is
  // reported; out of its time limit, its attempt fails (cpp/worker_halts.cpp).
  const int halted = it->second.halt ? it->second.halt->load() : 0;
  if (halted != 0)
    halts_.erase(std::remove_if(halts_.begin(), halts_.end(), [&](const HaltNotice& n) { return n.id == id; }),
                 halts_.end());
  if (halted == kHaltTimedOut) {
    ok = false;
    retry_delay_ms = kRetryDefault;
    reason = "timed out";
  }
  noteHandlerTime(startedUs, nowUs);
  // The cost goes with the settlement, charged to the job's lane (no-op
  // unless the queue is in cost mode); measured: at least 1 µs.
  Settlement s{id, token, ok, 0, std::move(reason)};
  s.lane = std::move(it->second.lane);
  s.cost = cost != kCostMeasured ? static_cast<uint64_t>(cost)
                                 : static_cast<uint64_t>(std::max<int64_t>(1, startedUs < 0 ? 1 : nowUs - startedUs));
  const bool last = it->second.last;
  held_.erase(it);
  activeMs_ = nowUs / 1000;
  int64_t delay = retry_delay_ms == kRetryDefault ? o_.retry_delay_ms : retry_delay_ms;
  s.retry_delay_ms = ok ? 0 : delay;
  if (ok) {
    s.result = std::move(result);
    s.dropped = std::move(dropped);
  }
  outbox_.push_back(std::move(s));
  pumpCv_.notify_one();
  // The fail script's rule (lua/includes/attempt.lua): dead when the
  // delivery used the last attempt of its budget, or when told so.
  if (!o_.report_outcomes) return kOk;
  if (halted == kHaltCanceled) return kWasCanceled;
  if (ok) return kOk;
  return last || delay == kRetryDeadNow ? kWillDie : kWillRetry;
}

bool Worker::stop(bool drain, int64_t timeout_ms) {
  std::unique_lock<std::mutex> lk(mu_);
  if (!started_) {
    finished_ = true;
    return true;
  }
  if (!stopping_) {
    stopping_ = true;
    drain_ = drain;
  }
  if (!drain) drain_ = false;
  pumpCv_.notify_all();
  jobsCv_.notify_all();
  waitCv_.notify_all();
  // Clamped so that the deadline cannot overflow the clock (a year is "forever").
  int64_t wait = std::min<int64_t>(std::max<int64_t>(timeout_ms, 0), 365LL * 24 * 3600 * 1000);
  bool clean = jobsCv_.wait_until(lk, at(steadyMs() + wait), [&] { return finished_; });
  if (!clean) {
    drain_ = false;  // the rest of the running jobs come back by their leases
    pumpCv_.notify_all();
  }
  lk.unlock();
  std::lock_guard<std::mutex> joining(joinMu_);
  if (pumpThread_.joinable()) pumpThread_.join();
  if (overlapThread_.joinable()) overlapThread_.join();
  // The waiter may be asleep on the server: interrupt it until it is gone.
  while (waitThread_.joinable()) {
    waitClient_.cancel();
    lk.lock();
    bool gone = waitDone_;
    lk.unlock();
    if (gone) {
      waitThread_.join();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // So may the notice thread (cpp/worker_halts.cpp).
  while (noticeThread_.joinable()) {
    noticeClient_.cancel();
    lk.lock();
    haltCv_.notify_all();
    bool gone = noticeDone_;
    lk.unlock();
    if (gone) {
      noticeThread_.join();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!drain) return true;
  // A drain is clean when no job was left running: also when an abandon
  // from another thread cut it short.
  lk.lock();
  return held_.empty();
}

WorkerStats Worker::stats() {
  std::lock_guard<std::mutex> lk(mu_);
  WorkerStats s = stats_;
  s.buffered = buffer_.size();
  s.running = held_.size() >= buffer_.size() ? held_.size() - buffer_.size() : 0;
  return s;
}

std::string Worker::lastError(int* code) {
  std::lock_guard<std::mutex> lk(mu_);
  if (code) *code = lastCode_;
  return lastError_;
}

void Worker::recordError(const Error& e) {
  lastError_ = e.what();
  lastCode_ = e.code();
  ++stats_.errors;
}

void Worker::noteUnconfirmed(const std::string& why) {
  if (why.empty()) return;
  lastError_ = why;
  lastCode_ = kUnconfirmed;
  ++stats_.unconfirmed;
}

int64_t Worker::idleDeadline(int64_t now) {
  if (o_.idle_timeout_ms == 0 || stopping_ || !held_.empty() || inFlight_ > 0 || !outbox_.empty()) return -1;
  const int64_t at = activeMs_ + o_.idle_timeout_ms;
  if (now >= at) {
    // As a drain with nothing running: next() says ECANCELED from now on.
    stopping_ = true;
    drain_ = true;
    jobsCv_.notify_all();
    waitCv_.notify_all();
    pumpCv_.notify_all();
  }
  return at;
}

std::vector<std::pair<uint64_t, uint64_t>> Worker::dueForExtension(int64_t now) {
  std::vector<std::pair<uint64_t, uint64_t>> due;
  for (const auto& [id, h] : held_)
    if (now >= h.deadline - o_.lease_ms / 2 && !(h.halt && h.halt->load() != 0)) due.emplace_back(id, h.token);
  return due;
}

void Worker::noteHandlerTime(int64_t startedUs, int64_t nowUs) {
  if (startedUs < 0) return;
  double us = static_cast<double>(std::max<int64_t>(nowUs - startedUs, 1));
  handlerUs_ = handlerUs_ == 0 ? us : handlerUs_ + (us - handlerUs_) * kHandlerWeight;
}

uint32_t Worker::holdCap() const {
  // Weighted batches keep whole turns only when a claim may ask for a whole
  // batch (lua/includes/turns.lua): they keep the fixed prefetch.
  if (o_.target_wait_ms == 0 || o_.weighted) return o_.slots;
  // Nothing measured yet: a job for each handler and one ahead. Filling the
  // slots here would put a full buffer ahead of every new job until it ran
  // out (with slow handlers, seconds); with fast ones the first reports
  // come a moment later and lift the cap.
  if (handlerUs_ == 0) return std::min<uint32_t>(o_.slots, hosts_ + 1);
  // Little's law: the handlers start hosts_ / handlerUs_ jobs a µs, so a
  // job claimed behind `ahead` unstarted ones waits ahead × handlerUs_ /
  // hosts_. At least one ahead: a handler that finishes finds its next job
  // here, not a round trip away.
  double ahead = std::ceil(static_cast<double>(o_.target_wait_ms) * 1000.0 * hosts_ / handlerUs_);
  double cap = static_cast<double>(hosts_) + std::max(ahead, 1.0);
  return cap >= o_.slots ? o_.slots : static_cast<uint32_t>(cap);
}

bool Worker::overlaps() const { return o_.prefetch >= kOverlapFrom; }

bool Worker::mayClaim() const {
  if (inFlight_ == 0) return true;
  // A second call in flight pays off for mid-sized batches only. Below a
  // prefetch of kOverlapFrom it splits batches that are already small, and
  // the fixed cost of a call (about three jobs' work) outweighs the overlap;
  // a call of kOverlapMax jobs or more keeps the server busy on its own (its
  // reply is handled while the rest of the slots run). Measured with
  // bench/compare phase a (docs/architecture.md).
  return overlaps() && claiming_ < kOverlapMax;
}

void Worker::pump(Router& client, bool extender) {
  std::unique_lock<std::mutex> lk(mu_);
  bool passWake = false;
  for (;;) {
    int64_t now = steadyMs();
    // The waiter saw a wake-up (or its wait ran out): claim again. Checked on
    // every pass, not only after a sleep: a wake-up that came while this
    // pump was sending settlements would otherwise be left unread, the
    // waiter armed again, and the work it announced left waiting for the
    // next wait to run out.
    if (woken_) {
      woken_ = false;
      idle_ = false;
      passWake = true;
    }
    if (idle_ && dueAt_ >= 0 && now >= dueAt_) idle_ = false;  // due work (a tick, a delayed job)
    if (!idle_) dueAt_ = -1;
    if (stopping_ && !buffer_.empty()) {
      // Prefetched, never started: back to their lanes at once.
      for (const Job& j : buffer_) {
        outbox_.push_back(Settlement{j.id, j.token, false, kRetryRelease, {}, {}});
        held_.erase(j.id);
      }
      buffer_.clear();
    }
    // Running jobs past their time limit are told to stop, before this
    // pass looks at what to send (a buffered one fails at once); the next
    // limit to run out is a time to wake at (cpp/worker_halts.cpp).
    const int64_t limitNext = extender ? haltTimedOut(now) : -1;
    size_t running = held_.size() - buffer_.size();
    size_t held = held_.size() + claiming_;
    // Latency-bounded prefetch: the slots this claim may fill, and the batch
    // it waits for (a third of what may be held, as with a fixed prefetch).
    const uint32_t cap = holdCap();
    const uint32_t batch = std::min(cap, o_.prefetch);
    uint32_t free = held < cap ? static_cast<uint32_t>(cap - held) : 0;
    uint32_t n = std::min(free, o_.prefetch);
    bool wantClaim = !stopping_ && !idle_ && free > 0 && now >= backoffUntil_ &&
                     (free >= std::max<uint32_t>(1, batch / kClaimAt) || buffer_.empty()) &&
                     mayClaim();
    // Settlements alone wait for the call in flight: the next call carries them.
    bool haveOut = !outbox_.empty() && now >= backoffUntil_ && (inFlight_ == 0 || stopping_);
    auto ext = extender && now >= backoffUntil_ ? dueForExtension(now) : decltype(dueForExtension(now)){};
    if (!wantClaim && !haveOut && ext.empty()) {
      // The other pump's call may still return jobs to give back or
      // settlements to send again: the last pump out ends the engine.
      bool quiet = inFlight_ == 0;
      if (quiet && stopping_ && outbox_.empty() && (!drain_ || running == 0)) break;
      if (quiet && stopping_ && !outbox_.empty() && now < backoffUntil_ && !drain_) break;  // no server: give up
      if (idle_ && !waitArmed_ && !stopping_) {
        waitArmed_ = true;
        waitCv_.notify_one();
      }
      int64_t wake = -1;
      if (extender) {
        for (const auto& [id, h] : held_) {
          if (h.halt && h.halt->load() != 0) continue;  // no longer extended
          int64_t t = h.deadline - o_.lease_ms / 2;
          if (wake < 0 || t < wake) wake = t;
        }
        if (limitNext >= 0 && (wake < 0 || limitNext < wake)) wake = limitNext;
      }
      if (backoffUntil_ > now && (wake < 0 || backoffUntil_ < wake)) wake = backoffUntil_;
      if (idle_ && dueAt_ >= 0 && (wake < 0 || dueAt_ < wake)) wake = dueAt_;
      const int64_t idleAt = idleDeadline(now);
      if (idleAt >= 0 && now >= idleAt) continue;  // the idle timeout ran out: stopping now
      if (idleAt >= 0 && (wake < 0 || idleAt < wake)) wake = idleAt;
      if (wake >= 0) {
        pumpCv_.wait_until(lk, at(std::max(wake, now + 1)));
      } else {
        pumpCv_.wait(lk);
      }
      continue;
    }
    std::vector<Settlement> out;
    if (haveOut || wantClaim) out.swap(outbox_);
    if (!wantClaim) n = 0;
    // Weighted batches end at a turn boundary (lua/includes/turns.lua), so a
    // lane's turn is never split between two round trips.
    std::string flags = passWake ? "w" : "";
    passWake = false;
    claiming_ += n;
    ++inFlight_;
    bool landed = false;  // the call's slots and in-flight count are given back
    auto land = [&] {     // under mu_, once per call
      if (landed) return;
      landed = true;
      claiming_ -= n;
      --inFlight_;
      pumpCv_.notify_all();  // the other pump may wait for this call
    };
    lk.unlock();
    int64_t t0 = steadyMs();
    try {
      if (!ext.empty()) {
        std::vector<uint64_t> ids, toks;
        for (auto& [id, tok] : ext) {
          ids.push_back(id);
          toks.push_back(tok);
        }
        std::vector<int> st(ids.size());
        client.beginCall();
        for (size_t i = 0; i < ids.size(); i += kBatchMax) {
          size_t m = std::min<size_t>(kBatchMax, ids.size() - i);
          client.extendMany(queue_.c_str(), &ids[i], &toks[i], m, o_.lease_ms, &st[i]);
        }
        const std::string why = client.confirmWrites();
        lk.lock();
        ++stats_.round_trips;
        noteUnconfirmed(why);
        for (size_t i = 0; i < ids.size(); ++i) {
          auto it = held_.find(ids[i]);
          if (it == held_.end() || it->second.token != toks[i]) continue;
          if (st[i] == kOk || st[i] == kWasCanceled) {
            it->second.deadline = t0 + o_.lease_ms;
            ++stats_.extended;
            if (st[i] == kWasCanceled) haltJob(ids[i], it->second, kHaltCanceled);
          } else if (st[i] == kTimeLimit) {  // the server's clock says its time ran out
            haltJob(ids[i], it->second, kHaltTimedOut);
          } else {  // lost: never hand it out, and its report will be refused
            if (it->second.startedUs >= 0) lost_[ids[i]] = toks[i];
            held_.erase(it);
            ++stats_.lost;
            buffer_.erase(std::remove_if(buffer_.begin(), buffer_.end(),
                                         [&](const Job& j) { return j.id == ids[i]; }),
                          buffer_.end());
          }
        }
        lk.unlock();
      }
      if (!out.empty() || n > 0) {
        client.beginCall();
        TakeResult r = client.settleClaim(queue_.c_str(), out, o_.lease_ms, n, o_.weighted, flags.c_str());
        // Not confirmed durable in time is still done: the jobs are ours and
        // the settlements went through (a failover may undo them; then the
        // jobs come back by their leases, never to a stale holder).
        const std::string why = client.confirmWrites();
        lk.lock();
        land();
        ++stats_.round_trips;
        noteUnconfirmed(why);
        for (size_t i = 0; i < out.size(); ++i) {
          int c = r.codes[i];
          if (c == kWasCanceled) ++stats_.canceled;
          else if (c == kStale || c == kNotFound) ++stats_.lost;
          else if (out[i].ack) ++stats_.done;
          else if (out[i].retry_delay_ms == kRetryRelease) ++stats_.released;
          else {
            ++stats_.failed;
            if (c == kFailDead) ++stats_.dead;
            else if (c == kFailDelayed) ++stats_.delayed;
            else ++stats_.retried;
          }
        }
        for (Job& j : r.claimed.jobs) {
          // The fail script dead-letters once attempts reach the attempts allowed.
          const bool last = j.allowed > 0 ? j.attempts >= j.allowed : j.attempt() >= j.max_attempts;
          j.halt = std::make_shared<std::atomic<int>>(0);
          held_[j.id] = Held{j.token, t0 + o_.lease_ms, j.group, last, -1, j.halt,
                             j.timeout_ms > 0 ? t0 + j.timeout_ms : -1};
          activeMs_ = t0;
          buffer_.push_back(std::move(j));
          ++stats_.claimed;
        }
        const bool handOut = !r.claimed.jobs.empty();
        if (n > 0 && r.claimed.jobs.empty()) {
          idle_ = true;
          int64_t due = r.claimed.next_due_ms;
          waitMs_ = due >= 0 ? std::min(o_.idle_wait_ms, due + 1) : o_.idle_wait_ms;
          dueAt_ = due >= 0 && due < o_.idle_wait_ms ? steadyMs() + due : -1;
        }
        backoffMs_ = 0;
        lk.unlock();
        // Woken after the unlock, the host threads do not wake only to
        // wait for the lock this pump still holds.
        if (handOut) jobsCv_.notify_all();
      }
    } catch (const Error& e) {
      lk.lock();
      land();
      recordError(e);
      // Settling again is safe: an entry that went through comes back
      // stale or not found, never settled twice. Jobs the lost call may
      // have claimed come back when their leases expire.
      outbox_.insert(outbox_.begin(), out.begin(), out.end());
      backoffMs_ = backoffMs_ ? std::min(backoffMs_ * 2, kBackoffMaxMs) : kBackoffFirstMs;
      backoffUntil_ = steadyMs() + backoffMs_;
      lk.unlock();
    } catch (...) {
      lk.lock();
      land();
      lastError_ = "internal error in the worker pump";
      lastCode_ = kInternal;
      ++stats_.errors;
      backoffUntil_ = steadyMs() + kBackoffMaxMs;
      lk.unlock();
    }
    lk.lock();
    land();
  }
  pumpCv_.notify_all();  // the other pump may be waiting for this one
  if (--pumpsLeft_ > 0) return;
  finished_ = true;
  jobsCv_.notify_all();
  waitCv_.notify_all();
  haltCv_.notify_all();
}

void Worker::waiter() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    waitCv_.wait(lk, [&] { return waitArmed_ || finished_ || stopping_; });
    if (finished_ || stopping_) break;
    int64_t ms = waitMs_;
    lk.unlock();
    try {
      waitClient_.waitForWork(queue_.c_str(), std::max<int64_t>(ms, 1));
    } catch (const Error& e) {
      lk.lock();
      if (!stopping_ && e.code() != kCanceled) recordError(e);
      lk.unlock();
      if (e.code() != kCanceled) std::this_thread::sleep_for(std::chrono::milliseconds(kBackoffFirstMs));
    }
    lk.lock();
    waitArmed_ = false;
    woken_ = true;
    pumpCv_.notify_one();
  }
  waitDone_ = true;
}

}  // namespace echomq
