#include "client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "error.hpp"
#include "validate.hpp"

namespace echomq {
namespace {

constexpr size_t kRedriveChunk = 1000;

// Reply arrays start with a status; negative ones carry a message.
int scriptStatus(const redisReply* r, const char* what) {
  if (r->type != REDIS_REPLY_ARRAY || r->elements == 0)
    echomq::fail(ECHOMQ_EPROTO, std::string(what) + ": unexpected reply shape");
  int64_t st = replyInt(r->element[0], what);
  if (st < 0) {
    std::string msg = r->elements > 1 ? replyStr(r->element[1], what) : std::string(what);
    echomq::fail(static_cast<int>(st), msg);
  }
  return static_cast<int>(st);
}

uint64_t u64(const redisReply* arr, size_t i, const char* what) {
  return static_cast<uint64_t>(replyInt(replyAt(arr, i, what), what));
}
int64_t i64(const redisReply* arr, size_t i, const char* what) {
  return replyInt(replyAt(arr, i, what), what);
}
std::string str(const redisReply* arr, size_t i, const char* what) {
  return replyStr(replyAt(arr, i, what), what);
}

int64_t steadyMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void Client::connect(const std::string& url) {
  Endpoint ep = parseUrl(url);
  conn_.open(ep, opts_.timeouts);
  scripts_.loadAll(conn_);
}

void Client::ping() {
  Argv a;
  a.ref("PING", 4);
  ReplyPtr r = conn_.command(a);
  if (r->type == REDIS_REPLY_ERROR) throwReplyError(r.get(), "PING");
}

const QueueKeys& Client::keysFor(const char* queue) {
  checkQueueName(queue);
  auto it = keys_.find(queue);
  if (it != keys_.end()) return it->second;
  if (keys_.size() >= 64) keys_.clear();  // bound the cache for many-queue clients
  return keys_.emplace(queue, makeQueueKeys(queue)).first->second;
}

Argv& Client::start(const QueueKeys& k) {
  ScriptRunner::begin(argv_);
  for (const auto& key : k.keys) argv_.ref(key);
  argv_.ref(k.prefix);
  return argv_;
}

ReplyPtr Client::run(Script s, int read_timeout_ms) {
  return scripts_.run(conn_, s, argv_, read_timeout_ms);
}

std::vector<uint64_t> Client::enqueue(const char* queue, const std::vector<NewJob>& jobs,
                                      int64_t delay_ms, uint32_t max_attempts) {
  const QueueKeys& k = keysFor(queue);
  if (jobs.empty()) invalid("batch is empty");
  if (jobs.size() > ECHOMQ_BATCH_MAX)
    echomq::fail(ECHOMQ_ETOOLARGE, "batch holds more than " + std::to_string(ECHOMQ_BATCH_MAX) + " jobs");
  checkRange("delay_ms", delay_ms, 0, ECHOMQ_DELAY_MAX_MS);
  checkRange("max_attempts", max_attempts, 0, ECHOMQ_ATTEMPTS_MAX);
  for (const NewJob& j : jobs) {
    checkGroupBytes(j.group, j.group_len);
    if (j.payload_len > 0 && !j.payload) invalid("payload is NULL with a non-zero length");
    if (j.payload_len > opts_.max_payload)
      echomq::fail(ECHOMQ_ETOOLARGE, "payload of " + std::to_string(j.payload_len) +
                                 " bytes is over the limit of " +
                                 std::to_string(opts_.max_payload));
  }
  // One script call: the batch is atomic, and ECHOMQ_BATCH_MAX bounds how
  // long it holds the server.
  start(k);
  argv_.own(delay_ms);
  argv_.own(static_cast<long long>(max_attempts));
  argv_.own(static_cast<long long>(jobs.size()));
  for (const NewJob& j : jobs) {
    argv_.ref(j.group, j.group_len);
    argv_.ref(j.payload ? j.payload : "", j.payload_len);
  }
  ReplyPtr r = run(Script::Enqueue);
  scriptStatus(r.get(), "enqueue");
  uint64_t first = u64(r.get(), 1, "enqueue");
  std::vector<uint64_t> ids(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) ids[i] = first + i;
  return ids;
}

ClaimResult Client::decodeClaim(const redisReply* r) {
  ClaimResult out;
  int st = scriptStatus(r, "claim");
  if (st == ECHOMQ_EMPTY) {
    out.empty = true;
    out.next_due_ms = r->elements > 1 ? i64(r, 1, "claim") : -1;
    return out;
  }
  if (r->elements < 2) {  // plain ack
    out.empty = true;
    return out;
  }
  uint64_t n = u64(r, 1, "claim");
  if (r->elements != 2 + 8 * n) echomq::fail(ECHOMQ_EPROTO, "claim: unexpected reply length");
  out.empty = n == 0;
  out.jobs.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t b = 2 + 8 * i;
    Job& j = out.jobs[i];
    j.id = u64(r, b, "claim id");
    j.group = str(r, b + 1, "claim group");
    j.payload = str(r, b + 2, "claim payload");
    j.token = u64(r, b + 3, "claim token");
    j.lease_until_ms = i64(r, b + 4, "claim lease");
    j.enqueued_at_ms = i64(r, b + 5, "claim enqueued");
    j.max_attempts = static_cast<uint32_t>(u64(r, b + 6, "claim max attempts"));
    j.last_error = str(r, b + 7, "claim last error");
  }
  return out;
}

ClaimResult Client::claim(const char* queue, int64_t lease_ms, uint32_t max, bool weighted) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  checkRange("max", max, 1, ECHOMQ_WCLAIM_MAX);
  // Each script call brings back a bounded amount of due work. EMPTY with
  // "next due in 0 ms" means more is waiting to be brought back, so call
  // again: every round removes up to 32 entries, so this ends.
  for (;;) {
    start(k);
    argv_.own(lease_ms);
    argv_.own(static_cast<long long>(weighted ? max : 1));
    argv_.ref(weighted ? "1" : "0", 1);
    argv_.ref("0", 1);
    ClaimResult res = decodeClaim(run(Script::Claim).get());
    if (!res.empty || res.next_due_ms != 0) return res;
  }
}

ClaimResult Client::bclaim(const char* queue, int64_t lease_ms, int64_t timeout_ms) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  checkRange("timeout_ms", timeout_ms, 1, 24LL * 3600 * 1000);
  const std::string& wake = k.keys[14];
  int64_t deadline = steadyMs() + timeout_ms;
  struct Cancellable {
    Connection& c;
    explicit Cancellable(Connection& conn) : c(conn) { c.beginCancellable(); }
    ~Cancellable() { c.endCancellable(); }
  } guard(conn_);
  for (;;) {
    start(k);
    argv_.own(lease_ms);
    argv_.ref("1", 1);
    argv_.ref("0", 1);
    argv_.ref("1", 1);  // pass a wake-up on to the next sleeper
    ReplyPtr r = run(Script::Claim);
    ClaimResult res = decodeClaim(r.get());
    if (!res.empty) return res;
    int64_t left = deadline - steadyMs();
    if (left <= 0) return res;
    int64_t wait = left;
    if (res.next_due_ms >= 0) wait = std::min(wait, res.next_due_ms + 1);
    if (wait <= 0) continue;
    // Sleep on the server until a lane joins the ring (a wake-up token) or
    // the next due time; then claim again.
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f", static_cast<double>(wait) / 1000.0);
    Argv b;
    b.ref("BLPOP", 5);
    b.ref(wake);
    b.ref(secs, std::strlen(secs));
    ReplyPtr w = conn_.interruptibleWait(b, static_cast<int>(wait) + opts_.timeouts.command_ms);
    if (w->type == REDIS_REPLY_ERROR) throwReplyError(w.get(), "BLPOP");
  }
}

void Client::startJobCall(const char* queue, uint64_t id, uint64_t token) {
  const QueueKeys& k = keysFor(queue);
  if (id == 0) invalid("job id must be >= 1");
  if (token == 0) invalid("token must be >= 1");
  start(k);
  argv_.own(std::to_string(id));
  argv_.own(std::to_string(token));
}

void Client::ack(const char* queue, uint64_t id, uint64_t token) {
  startJobCall(queue, id, token);
  argv_.ref("0", 1);
  ReplyPtr r = run(Script::Ack);
  scriptStatus(r.get(), "ack");
}

size_t Client::ackMany(const char* queue, const uint64_t* ids, const uint64_t* tokens, size_t n,
                       int* statuses) {
  const QueueKeys& k = keysFor(queue);
  checkRange("job count", static_cast<long long>(n), 1, ECHOMQ_WCLAIM_MAX);
  if (!ids || !tokens) invalid("ids or tokens is NULL");
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == 0) invalid("job id must be >= 1");
    if (tokens[i] == 0) invalid("token must be >= 1");
  }
  start(k);
  argv_.own(static_cast<long long>(n));
  for (size_t i = 0; i < n; ++i) {
    argv_.own(std::to_string(ids[i]));
    argv_.own(std::to_string(tokens[i]));
  }
  ReplyPtr r = run(Script::AckMany);
  scriptStatus(r.get(), "ackmany");
  if (r->elements != n + 1) echomq::fail(ECHOMQ_EPROTO, "ackmany: unexpected reply length");
  size_t acked = 0;
  for (size_t i = 0; i < n; ++i) {
    int st = static_cast<int>(i64(r.get(), i + 1, "ackmany"));
    if (st == ECHOMQ_OK) ++acked;
    if (statuses) statuses[i] = st;
  }
  return acked;
}

ClaimResult Client::ackClaim(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms) {
  checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  startJobCall(queue, id, token);
  argv_.own(lease_ms);
  ClaimResult res = decodeClaim(run(Script::Ack).get());
  // The ack is done; more due work waits to be brought back (see claim).
  if (res.empty && res.next_due_ms == 0) return claim(queue, lease_ms, 1, false);
  return res;
}

int Client::fail(const char* queue, uint64_t id, uint64_t token, const char* reason,
                 int64_t retry_delay_ms) {
  if (retry_delay_ms != ECHOMQ_RETRY_BACKOFF)
    checkRange("retry_delay_ms", retry_delay_ms, 0, ECHOMQ_DELAY_MAX_MS);
  size_t rlen = reason ? std::strlen(reason) : 0;
  rlen = std::min<size_t>(rlen, ECHOMQ_REASON_MAX);
  startJobCall(queue, id, token);
  argv_.ref(reason ? reason : "", rlen);
  argv_.own(retry_delay_ms);
  ReplyPtr r = run(Script::Fail);
  scriptStatus(r.get(), "fail");
  return static_cast<int>(i64(r.get(), 1, "fail"));
}

int64_t Client::extend(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms) {
  checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  startJobCall(queue, id, token);
  argv_.own(lease_ms);
  ReplyPtr r = run(Script::Extend);
  scriptStatus(r.get(), "extend");
  return i64(r.get(), 1, "extend");
}

void Client::laneSetting(Script s, const char* queue, const char* group, const char* what,
                         long long value, long long hi) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  checkRange(what, value, 0, hi);
  start(k);
  argv_.ref(group, std::strlen(group));
  argv_.own(value);
  scriptStatus(run(s).get(), what);
}

void Client::setWeight(const char* queue, const char* group, uint32_t weight) {
  laneSetting(Script::Weight, queue, group, "weight", weight, ECHOMQ_WEIGHT_MAX);
}

void Client::setLimit(const char* queue, const char* group, uint32_t limit) {
  laneSetting(Script::Limit, queue, group, "limit", limit, ECHOMQ_LIMIT_MAX);
}

void Client::setPaused(const char* queue, const char* group, bool paused) {
  laneSetting(Script::Pause, queue, group, "pause", paused ? 1 : 0, 1);
}

void Client::setDefault(const char* queue, const char* what, uint32_t value) {
  const QueueKeys& k = keysFor(queue);
  start(k);
  argv_.ref(what, std::strlen(what));
  argv_.own(static_cast<long long>(value));
  scriptStatus(run(Script::Defaults).get(), "defaults");
}

echomq_queue_stats Client::stats(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  start(k);
  ReplyPtr r = run(Script::Stats);
  scriptStatus(r.get(), "stats");
  const redisReply* a = r.get();
  echomq_queue_stats s{};
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  s.lanes = u64(a, 1, "stats");
  s.ring = u64(a, 2, "stats");
  s.pending = u64(a, 3, "stats");
  s.leased = u64(a, 4, "stats");
  s.delayed = u64(a, 5, "stats");
  s.dead = u64(a, 6, "stats");
  s.paused = u64(a, 7, "stats");
  s.enqueued_total = u64(a, 8, "stats");
  s.claimed_total = u64(a, 9, "stats");
  s.acked_total = u64(a, 10, "stats");
  s.failed_total = u64(a, 11, "stats");
  s.dead_total = u64(a, 12, "stats");
  s.default_weight = static_cast<uint32_t>(u64(a, 13, "stats"));
  s.default_limit = static_cast<uint32_t>(u64(a, 14, "stats"));
  s.default_max_attempts = static_cast<uint32_t>(u64(a, 15, "stats"));
  s.server_time_ms = i64(a, 16, "stats");
  return s;
}

namespace {
std::vector<echomq_lane_info> decodeLanes(const redisReply* r) {
  scriptStatus(r, "lanes");
  uint64_t n = u64(r, 1, "lanes");
  if (r->elements != 2 + 13 * n) echomq::fail(ECHOMQ_EPROTO, "lanes: unexpected reply length");
  std::vector<echomq_lane_info> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t b = 2 + 13 * i;
    echomq_lane_info& l = out[i];
    std::memset(&l, 0, sizeof l);
    l.version = ECHOMQ_LANE_INFO_VERSION;
    std::string g = str(r, b, "lanes");
    std::memcpy(l.group, g.data(), std::min<size_t>(g.size(), ECHOMQ_GROUP_NAME_MAX));
    l.depth = u64(r, b + 1, "lanes");
    l.active = u64(r, b + 2, "lanes");
    l.limit = static_cast<uint32_t>(u64(r, b + 3, "lanes"));
    l.weight = static_cast<uint32_t>(u64(r, b + 4, "lanes"));
    l.limit_is_default = static_cast<int>(i64(r, b + 5, "lanes"));
    l.weight_is_default = static_cast<int>(i64(r, b + 6, "lanes"));
    l.paused = static_cast<int>(i64(r, b + 7, "lanes"));
    l.serviceable = static_cast<int>(i64(r, b + 8, "lanes"));
    l.served = u64(r, b + 9, "lanes");
    l.oldest_enqueued_at_ms = i64(r, b + 10, "lanes");
    l.known = static_cast<int>(i64(r, b + 11, "lanes"));
    l.delayed = u64(r, b + 12, "lanes");
  }
  return out;
}
}  // namespace

echomq_lane_info Client::lane(const char* queue, const char* group) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  start(k);
  argv_.ref("one", 3);
  argv_.ref(group, std::strlen(group));
  auto v = decodeLanes(run(Script::Lanes).get());
  if (v.size() != 1) echomq::fail(ECHOMQ_EPROTO, "lane: unexpected reply length");
  return v[0];
}

std::vector<echomq_lane_info> Client::lanes(const char* queue, const char* after, size_t count,
                                            bool& more) {
  const QueueKeys& k = keysFor(queue);
  if (after && *after) checkGroupName(after);
  checkRange("count", static_cast<long long>(count), 1, 10000);
  start(k);
  argv_.ref("page", 4);
  argv_.ref(after ? after : "", after ? std::strlen(after) : 0);
  argv_.own(static_cast<long long>(count));
  auto v = decodeLanes(run(Script::Lanes).get());
  more = v.size() == count;
  return v;
}

std::vector<Job> Client::dead(const char* queue, uint64_t offset, size_t count) {
  const QueueKeys& k = keysFor(queue);
  checkRange("count", static_cast<long long>(count), 1, 10000);
  if (offset > (1ULL << 53)) invalid("offset is too large");
  start(k);
  argv_.own(std::to_string(offset));
  argv_.own(static_cast<long long>(count));
  ReplyPtr r = run(Script::Dead);
  scriptStatus(r.get(), "dead");
  uint64_t n = u64(r.get(), 1, "dead");
  if (r->elements != 2 + 8 * n) echomq::fail(ECHOMQ_EPROTO, "dead: unexpected reply length");
  std::vector<Job> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t b = 2 + 8 * i;
    Job& j = out[i];
    j.id = u64(r.get(), b, "dead");
    j.group = str(r.get(), b + 1, "dead");
    j.payload = str(r.get(), b + 2, "dead");
    j.token = u64(r.get(), b + 3, "dead");
    j.max_attempts = static_cast<uint32_t>(u64(r.get(), b + 4, "dead"));
    j.enqueued_at_ms = i64(r.get(), b + 5, "dead");
    j.dead_at_ms = i64(r.get(), b + 6, "dead");
    j.last_error = str(r.get(), b + 7, "dead");
  }
  return out;
}

uint64_t Client::redrive(const char* queue, const uint64_t* ids, size_t n) {
  const QueueKeys& k = keysFor(queue);
  checkRange("id count", static_cast<long long>(n), 1, 10000);
  if (!ids) invalid("ids is NULL");
  for (size_t i = 0; i < n; ++i)
    if (ids[i] == 0) invalid("job id must be >= 1");
  start(k);
  argv_.ref("ids", 3);
  for (size_t i = 0; i < n; ++i) argv_.own(std::to_string(ids[i]));
  ReplyPtr r = run(Script::Redrive);
  scriptStatus(r.get(), "redrive");
  return u64(r.get(), 1, "redrive");
}

uint64_t Client::redriveAll(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  uint64_t total = 0;
  for (;;) {
    start(k);
    argv_.ref("all", 3);
    argv_.own(static_cast<long long>(kRedriveChunk));
    ReplyPtr r = run(Script::Redrive);
    scriptStatus(r.get(), "redrive");
    uint64_t moved = u64(r.get(), 1, "redrive");
    total += moved;
    if (moved == 0 || u64(r.get(), 2, "redrive") == 0) return total;
  }
}

std::vector<std::string> Client::verify(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  start(k);
  // A whole-queue walk may take longer than an ordinary command.
  ReplyPtr r = run(Script::Verify, std::max(opts_.timeouts.command_ms, 60000));
  scriptStatus(r.get(), "verify");
  std::vector<std::string> out;
  for (size_t i = 1; i < r->elements; ++i) out.push_back(str(r.get(), i, "verify"));
  return out;
}

}  // namespace echomq
