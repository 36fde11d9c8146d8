// The core client: every queue operation as one script call over one
// connection. Validates all input before any I/O; throws echomq::Error.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "connection.hpp"
#include "flows.hpp"
#include "keys.hpp"
#include "script_runner.hpp"
#include "types.hpp"

namespace echomq {

// What a writing call waits for before it reports success
// (echomq_client_options.wait_*): WAIT for `replicas`, WAITAOF for the local
// AOF, at most timeout_ms.
struct Durability {
  int replicas = 0;
  bool aof = false;
  int timeout_ms = 1000;
  bool on() const { return replicas > 0 || aof; }
  // The C options' values are in range.
  static bool valid(int replicas, int aof, int timeout_ms) {
    return replicas >= 0 && replicas <= kWaitReplicasMax && (aof == 0 || aof == 1) &&
           timeout_ms >= 1 && timeout_ms <= kWaitTimeoutMaxMs;
  }
};

struct ClientOptions {
  Timeouts timeouts;
  size_t max_payload = kDefaultMaxPayload;
  Durability durability;
  TlsSettings tls;  // defaults for a TLS URL; its query wins (mergeTls)
};

struct Job {
  uint64_t id = 0;
  std::string group;
  std::string payload;
  uint64_t token = 0;    // fences this delivery (dead jobs: the attempts used)
  uint64_t attempts = 0;  // attempts so far, this delivery included (all budgets)
  uint32_t max_attempts = 0;
  int64_t lease_until_ms = 0;
  int64_t enqueued_at_ms = 0;
  int64_t dead_at_ms = 0;
  std::string last_error;
  // Attempts allowed: the attempt count at which a failed attempt
  // dead-letters (max_attempts, raised to attempts + max by a redrive, by one
  // by a release; lua/includes/record.lua). Not a lane's size cap.
  uint64_t allowed = 0;
  int state = kJobLeased;
  int64_t due_at_ms = 0;      // delayed jobs
  // Outcomes (job lookup): first delivery, completion or death (0 = none),
  // the last progress reported, a retained result.
  int64_t started_at_ms = 0;
  int64_t finished_at_ms = 0;
  std::string progress;
  std::string result;
  // Lifecycle (cpp/lifecycle.cpp): a claimed job's time limit (ms, 0 =
  // none), and for a job a worker engine handed out, why the engine told
  // its handler to stop (0 = it runs on; kHaltCanceled, kHaltTimedOut), set
  // by the engine's threads while the handler reads it.
  int64_t timeout_ms = 0;
  std::shared_ptr<std::atomic<int>> halt;
  // A tick's job (lookup only): its schedule and the tick's time.
  std::string schedule;
  int64_t tick_ms = 0;
  std::string result_dropped;  // why a completed job keeps no result ("" = none)
  // Its name ("" = none) and headers, as enqueued (cpp/job_meta.hpp).
  std::string name;
  std::vector<std::pair<std::string, std::string>> headers;
  // Which attempt of its current budget (echomq_job_attempt): a redrive
  // gives a fresh budget by raising the attempts allowed, so
  // attempts - (allowed - max).
  uint32_t attempt() const {
    uint64_t base = allowed > max_attempts ? allowed - max_attempts : 0;
    return attempts > base ? static_cast<uint32_t>(attempts - base) : 0;
  }
};

struct ClaimResult {
  bool empty = true;
  int64_t next_due_ms = -1;  // when empty: ms to the next due time, -1 none
  std::vector<Job> jobs;
};

// One settlement of a held job: an ack, or a fail with a retry delay (ms;
// kRetryBackoff, kRetryDeadNow, kRetryRelease) and a reason.
struct Settlement {
  Settlement() = default;
  Settlement(uint64_t i, uint64_t t, bool a, int64_t d, std::string r, std::string res = {})
      : id(i), token(t), ack(a), retry_delay_ms(d), reason(std::move(r)), result(std::move(res)) {}
  uint64_t id = 0;
  uint64_t token = 0;
  bool ack = true;
  int64_t retry_delay_ms = 0;
  std::string reason;
  std::string result;  // an ack's result (0..kResultMax bytes), kept when retained
  // Why an ack's result is not kept ("" = it is), recorded with its
  // outcome instead (lua/includes/finishAcks.lua).
  std::string dropped;
  // What the job's work cost (cost > 0), charged to `lane` in a queue's cost
  // mode: take sends one charge per lane and call (lua/take.lua).
  std::string lane;
  uint64_t cost = 0;
};

// Checks one settlement's id, token, retry delay (EINVAL) and result
// (ETOOLARGE), before any I/O.
void checkSettlement(const Settlement& s);
// A job's own retention at enqueue: keep_ms 0..kKeepMaxMs, keep_last
// 0..kKeepLastMax (both 0 = the queue's); EINVAL otherwise.
void checkKeep(int64_t keep_ms, uint64_t keep_last);
// A cost estimate at enqueue: 0 (none) or 1..kIdMax; EINVAL otherwise.
void checkEstimate(uint64_t estimate);
// A job's lifecycle limits at enqueue (cpp/lifecycle.cpp): EINVAL for a
// negative or too long timeout or deadline, or both a deadline and a ttl.
// A deadline already passed is the server's to refuse (its clock).
void checkLimits(const JobLimits& l);

// Writes a script call's arguments by the layout lua/args.txt gives the
// script (cpp/args.hpp: the core's sources that write calls include it).
template <class Layout>
class ArgWriter;

// A queue-wide default (the scripts' "weight", "limit", "maxatt").
enum class QueueDefault { Weight, Limit, MaxAttempts };

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
  const char* key = nullptr;  // idempotency key (NULL or "" = none)
  size_t key_len = 0;
  // Its name and headers, stored form (cpp/job_meta.hpp: encodeMeta; NULL
  // or "" = none), already checked.
  const char* meta = nullptr;
  size_t meta_len = 0;
};

// What an enqueue did: each job's id, and which were duplicates of a job
// enqueued before with the same idempotency key.
struct EnqueueResult {
  std::vector<uint64_t> ids;
  std::vector<bool> duplicate;
};

// One finding of doctor(): a DoctorLevel and "check: finding; advice".
struct DoctorLine {
  int level;
  std::string text;
};

class Client {
 public:
  explicit Client(const ClientOptions& opts) : opts_(opts) {}

  void connect(const std::string& url);
  void connect(const Endpoint& ep);
  bool connected() const { return conn_.connected(); }
  // The connection (a router reads the slot map and the redirects on it).
  Connection& connection() { return conn_; }
  // Durability: every operation that writes marks the call; confirmWrites()
  // then waits as opts.durability says (one WAIT / WAITAOF for the whole
  // call) and returns "" when confirmed or nothing needed it, else why not.
  // The write itself happened either way. beginCall() forgets a mark left
  // by a call that failed.
  void beginCall() { wrote_ = false; }
  std::string confirmWrites();
  void cancel() { conn_.cancel(); }
  void ping();

  // The queue operations (cpp/queue_ops.inc documents each).
#include "queue_ops.inc"

  // What enqueue() checks before any I/O (EINVAL, ETOOLARGE).
  void checkEnqueue(const std::vector<NewJob>& jobs, int64_t delay_ms, uint32_t max_attempts,
                    int64_t at_ms = 0) const;
  // The record of a sharded queue (cpp/shard_record.cpp): its shard
  // queues' names in shard order; empty for a plain queue.
  std::vector<std::string> shardNames(const char* queue);
  // Makes queue a sharded queue over these shard queues, or opens it when it
  // is one with as many; returns the names stored (ESHARDS otherwise).
  std::vector<std::string> initShards(const char* queue, const std::vector<std::string>& names);

 private:
  const QueueKeys& keysFor(const char* queue);
  // Validates an enqueue and runs its script call: the jobs, their
  // idempotency keys when window_ms > 0, their retention and estimate, and
  // an absolute due time (at_ms > 0: ms since the epoch, server clock).
  ReplyPtr runEnqueue(const char* queue, const std::vector<NewJob>& jobs, int64_t delay_ms,
                      uint32_t max_attempts, int64_t window_ms, int64_t keep_ms, uint64_t keep_last,
                      uint64_t estimate, int64_t at_ms, const JobLimits& limits);
  // One call of the schedules script (lua/schedules.lua), decoded: schedule
  // `name`, or (name NULL) a page of `count` after `after`.
  std::vector<ScheduleInfo> readSchedules(const char* queue, const char* after, const char* name, size_t count);
  // Starts a call of script s: EVALSHA, the keys it uses, the prefix.
  Argv& start(Script s, const QueueKeys& k);
  // Starts a call of script s, whose arguments have the layout L of
  // lua/args.txt (args::Take, ...); defined in cpp/args.hpp.
  template <class L>
  ArgWriter<L> call(Script s, const QueueKeys& k);
  ReplyPtr run(Script s, int read_timeout_ms = 0);
  // One take call (lua/take.lua); validated arguments.
  // `extra`: charges beyond those of the settlements (lane, cost).
  TakeResult take(const QueueKeys& k, const std::vector<Settlement>& s, int64_t lease_ms,
                  uint32_t n, uint32_t turns, bool weighted, const char* flags,
                  const std::vector<std::pair<std::string, uint64_t>>* extra = nullptr);
  // take() for claims only, called again while due work waits to be brought back.
  ClaimResult claimTurns(const QueueKeys& k, int64_t lease_ms, uint32_t n, uint32_t turns,
                         bool weighted, const char* flags);
  // XREAD of stream `key` after stream id `after`, at most count entries,
  // waiting up to block_ms (0 = do not wait; cancel() interrupts a wait).
  // Each entry: its stream id, then field, value pairs.
  std::vector<std::vector<std::string>> readStream(const std::string& key, const std::string& after,
                                                   size_t count, int64_t block_ms);
  // BLPOP on key for up to wait_ms, inside a Connection::CancellableScope
  // (cancel() interrupts it: ECANCELED); whether an element came.
  bool blockPop(const std::string& key, int64_t wait_ms);
  // Settles one job and throws its refusal as an error.
  int settleOne(const char* queue, const Settlement& s, const char* what);
  // Why settlement s was refused as stale, said truthfully: another
  // delivery holds the job now, or it is no longer leased (and where it is).
  std::string staleReason(const char* queue, const Settlement& s);
  // Validates and runs a per-lane setting: group and a value in 0..hi.
  // A queue mode's script (cost mode, wait figures): sets `value` (checked
  // to -1..hi; -1 only reads it) and returns the value it had.
  template <class L>
  uint64_t queueMode(Script s, const char* queue, const char* what, const char* arg, int64_t value,
                     int64_t hi);
  template <class L>
  void laneSetting(Script s, const char* queue, const char* group, const char* what,
                   long long value, long long hi);

  ClientOptions opts_;
  bool wrote_ = false;  // a writing script ran in this call
  Connection conn_;
  ScriptRunner scripts_;
  Argv argv_;
  std::unordered_map<std::string, QueueKeys> keys_;
};

}  // namespace echomq
