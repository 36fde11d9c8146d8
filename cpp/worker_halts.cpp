// The worker engine's side of a job's lifecycle (docs/architecture.md,
// "Lifecycle"): a running job's handler is told to stop when the job is
// canceled (echomq_cancel) or runs out of its time limit. The engine sets
// the job's halt flag (Job::halt, read by the handler), stops extending its
// lease and queues a notice for nextHalt(), which the bindings wait on to
// wake their handlers (an Event, a task's cancel, a context). It learns of
// a cancel from the queue's notice stream at once (noticeLoop) or from its
// next extension (WAS_CANCELED), and of a time limit from its own clock.
#include <algorithm>
#include <chrono>
#include <thread>

#include "clock.hpp"
#include "validate.hpp"
#include "worker.hpp"

namespace echomq {
namespace {

std::chrono::steady_clock::time_point at(int64_t ms) {
  return std::chrono::steady_clock::time_point(std::chrono::milliseconds(ms));
}

}  // namespace

void Worker::haltJob(uint64_t id, Held& h, int why) {
  if (h.halt && h.halt->load() != 0) return;  // told already
  if (!h.halt) h.halt = std::make_shared<std::atomic<int>>(0);
  h.halt->store(why);
  if (why == kHaltTimedOut) ++stats_.timed_out;
  if (h.startedUs >= 0) {  // running: its handler hears through nextHalt()
    halts_.push_back(HaltNotice{id, h.token, why});
    haltCv_.notify_all();
    return;
  }
  // Buffered, never handed out: a canceled job goes back (the server
  // settles it as canceled), a timed-out one fails its attempt.
  buffer_.erase(std::remove_if(buffer_.begin(), buffer_.end(), [&](const Job& j) { return j.id == id; }),
                buffer_.end());
  Settlement s{id, h.token, false, why == kHaltCanceled ? kRetryRelease : o_.retry_delay_ms,
               why == kHaltTimedOut ? "timed out" : ""};
  outbox_.push_back(std::move(s));
  held_.erase(id);
  pumpCv_.notify_one();
}

int64_t Worker::haltTimedOut(int64_t now) {
  int64_t next = -1;
  std::vector<uint64_t> due;
  for (const auto& [id, h] : held_) {
    if (h.timeoutAt < 0 || (h.halt && h.halt->load() != 0)) continue;
    if (now >= h.timeoutAt) {
      due.push_back(id);
    } else if (next < 0 || h.timeoutAt < next) {
      next = h.timeoutAt;
    }
  }
  for (uint64_t id : due) {
    auto it = held_.find(id);
    if (it != held_.end()) haltJob(id, it->second, kHaltTimedOut);
  }
  return next;
}

bool Worker::nextHalt(int64_t timeout_ms, uint64_t& id, uint64_t& token, int& why) {
  checkRange("timeout_ms", timeout_ms, 0, kWaitMaxMs);
  std::unique_lock<std::mutex> lk(mu_);
  if (!started_) invalid("worker not started");
  // Notices go on while a drain waits for its running jobs.
  haltCv_.wait_until(lk, at(steadyMs() + timeout_ms), [&] { return !halts_.empty() || finished_; });
  if (halts_.empty()) {
    if (finished_) fail(kCanceled, "the worker has stopped");
    return false;
  }
  const HaltNotice n = halts_.front();
  halts_.pop_front();
  id = n.id;
  token = n.token;
  why = n.why;
  return true;
}

void Worker::noticeLoop() {
  std::unique_lock<std::mutex> lk(mu_);
  bool connected = false;
  std::string after = "$";
  for (;;) {
    // Only running jobs can be told to stop: with none, no server wait.
    haltCv_.wait(lk, [&] { return finished_ || held_.size() > buffer_.size(); });
    if (finished_) break;
    lk.unlock();
    std::vector<std::pair<std::string, uint64_t>> got;
    bool quit = false, backoff = false;
    try {
      if (!connected) {
        noticeClient_.connect(url_);
        connected = true;
      }
      got = noticeClient_.readNotices(queue_.c_str(), after, o_.idle_wait_ms);
    } catch (const Error& e) {
      lk.lock();
      // A sharded queue has no one stream: its jobs learn at their next
      // extension. A cancel() (stop) ends the wait.
      quit = e.code() == kShards || finished_ || stopping_;
      if (!quit && e.code() != kCanceled) recordError(e);
      backoff = !quit;
      connected = connected && e.code() != kConn && e.code() != kTimeout;
      lk.unlock();
    }
    if (backoff) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    lk.lock();
    if (quit) break;
    for (const auto& [sid, id] : got) {
      after = sid;
      auto it = held_.find(id);
      if (it != held_.end()) haltJob(id, it->second, kHaltCanceled);
    }
    if (held_.size() <= buffer_.size()) after = "$";  // a new start reads only new notices
  }
  noticeDone_ = true;
}

}  // namespace echomq
