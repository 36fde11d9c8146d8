// The core client: every operation of DESIGN.md as one script call over one
// connection. Validates all input before any I/O; throws echomq::Error.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "connection.hpp"
#include "echomq/echomq.h"
#include "keys.hpp"
#include "script_runner.hpp"

namespace echomq {

struct ClientOptions {
  Timeouts timeouts;
  size_t max_payload = ECHOMQ_DEFAULT_MAX_PAYLOAD;
};

struct Job {
  uint64_t id = 0;
  std::string group;
  std::string payload;
  uint64_t token = 0;
  uint32_t max_attempts = 0;
  int64_t lease_until_ms = 0;
  int64_t enqueued_at_ms = 0;
  int64_t dead_at_ms = 0;
  std::string last_error;
};

struct ClaimResult {
  bool empty = true;
  int64_t next_due_ms = -1;  // when empty: ms to the next due time, -1 none
  std::vector<Job> jobs;
};

// One settlement of a held job: an ack, or a fail with a retry delay (ms;
// kRetryBackoff, kRetryDeadNow, kRetryRelease) and a reason.
struct Settlement {
  uint64_t id = 0;
  uint64_t token = 0;
  bool ack = true;
  int64_t retry_delay_ms = 0;
  std::string reason;
};
constexpr int64_t kRetryBackoff = -1;
constexpr int64_t kRetryDeadNow = -2;
constexpr int64_t kRetryRelease = -3;

// What one take call did: a code per settlement (acks: OK, ESTALE,
// ENOTFOUND; fails: the outcome or ESTALE, ENOTFOUND) and the jobs claimed.
struct TakeResult {
  std::vector<int> codes;
  ClaimResult claimed;
};

// One job to enqueue: borrowed bytes.
struct NewJob {
  const char* group;
  size_t group_len;
  const char* payload;
  size_t payload_len;
};

// One finding of doctor(): an echomq_doctor_level and "check: finding; advice".
struct DoctorLine {
  int level;
  std::string text;
};

class Client {
 public:
  explicit Client(const ClientOptions& opts) : opts_(opts) {}

  void connect(const std::string& url);
  bool connected() const { return conn_.connected(); }
  void cancel() { conn_.cancel(); }
  void ping();

  // Enqueues jobs (1..ECHOMQ_BATCH_MAX) in one atomic script call; returns
  // the id of every job in order.
  std::vector<uint64_t> enqueue(const char* queue, const std::vector<NewJob>& jobs,
                                int64_t delay_ms, uint32_t max_attempts);

  ClaimResult claim(const char* queue, int64_t lease_ms, uint32_t max, bool weighted);
  // n successive turns of the ring in one call (weighted: turns as wclaim
  // serves them, until n jobs are taken).
  ClaimResult claimBatch(const char* queue, int64_t lease_ms, uint32_t n, bool weighted);
  // Settles every entry, then (n > 0) claims a batch, in one round trip.
  // flags: "w" passes a wake-up on to the next sleeper while work remains.
  TakeResult settleClaim(const char* queue, const std::vector<Settlement>& s, int64_t lease_ms,
                         uint32_t n, bool weighted, const char* flags = "");
  // Extends n leases at once; statuses[i] gets each job's status. Returns the new deadline.
  int64_t extendMany(const char* queue, const uint64_t* ids, const uint64_t* tokens, size_t n,
                     int64_t lease_ms, int* statuses);
  ClaimResult bclaim(const char* queue, int64_t lease_ms, int64_t timeout_ms);
  // Sleeps on the server until a lane of the queue joins the ring (a
  // wake-up token) or timeout_ms pass; cancel() interrupts it (ECANCELED).
  // Returns whether a wake-up came.
  bool waitForWork(const char* queue, int64_t timeout_ms);
  void ack(const char* queue, uint64_t id, uint64_t token);
  // Acks n jobs in one call; statuses[i] gets each job's status. Returns
  // how many were acked.
  size_t ackMany(const char* queue, const uint64_t* ids, const uint64_t* tokens, size_t n,
                 int* statuses);
  ClaimResult ackClaim(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms);
  int fail(const char* queue, uint64_t id, uint64_t token, const char* reason,
           int64_t retry_delay_ms);
  int64_t extend(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms);

  void setWeight(const char* queue, const char* group, uint32_t weight);  // 0 clears
  void setLimit(const char* queue, const char* group, uint32_t limit);    // 0 clears
  void setPaused(const char* queue, const char* group, bool paused);
  void setDefault(const char* queue, const char* what, uint32_t value);
  // Rate limit of a lane (group) or the queue default (group NULL): jobs per
  // period_ms with a burst (0 = jobs); jobs 0 clears.
  void setRate(const char* queue, const char* group, uint32_t jobs, int64_t period_ms, uint32_t burst);
  // No job of the lane before server now + ms.
  void throttle(const char* queue, const char* group, int64_t ms);
  // Size cap of a lane or the queue default (group NULL); 0 clears.
  void setCap(const char* queue, const char* group, uint64_t cap);

  echomq_queue_stats stats(const char* queue);
  echomq_lane_info lane(const char* queue, const char* group);
  // Returns the page; `more` tells whether a further page may exist.
  std::vector<echomq_lane_info> lanes(const char* queue, const char* after, size_t count,
                                      bool& more);
  std::vector<Job> dead(const char* queue, uint64_t offset, size_t count);
  uint64_t redrive(const char* queue, const uint64_t* ids, size_t n);
  uint64_t redriveAll(const char* queue);
  std::vector<std::string> verify(const char* queue);
  // One bounded step of a repair (lua/includes/mend.lua): appends the
  // changes to `lines` and returns the next cursor ("" = done).
  std::string repair(const char* queue, bool apply, const std::string& cursor, size_t count,
                     std::vector<std::string>& lines);
  // Checks the server the queue runs on (cpp/doctor.cpp); acl_user NULL =
  // the connected user.
  std::vector<DoctorLine> doctor(const char* queue, const char* acl_user);

 private:
  const QueueKeys& keysFor(const char* queue);
  // Starts a call of script s: EVALSHA, the keys it uses, the prefix.
  Argv& start(Script s, const QueueKeys& k);
  ReplyPtr run(Script s, int read_timeout_ms = 0);
  // One take call (lua/take.lua); validated arguments.
  TakeResult take(const QueueKeys& k, const std::vector<Settlement>& s, int64_t lease_ms,
                  uint32_t n, uint32_t turns, bool weighted, const char* flags);
  // take() for claims only, called again while due work waits to be brought back.
  ClaimResult claimTurns(const QueueKeys& k, int64_t lease_ms, uint32_t n, uint32_t turns,
                         bool weighted, const char* flags);
  // Settles one job and throws its refusal as an error.
  int settleOne(const char* queue, const Settlement& s, const char* what);
  // Validates and runs a per-lane setting: group and a value in 0..hi.
  void laneSetting(Script s, const char* queue, const char* group, const char* what,
                   long long value, long long hi);

  ClientOptions opts_;
  Connection conn_;
  ScriptRunner scripts_;
  Argv argv_;
  std::unordered_map<std::string, QueueKeys> keys_;
};

}  // namespace echomq
