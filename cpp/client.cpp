#include "client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

Argv& Client::start(Script s, const QueueKeys& k) {
  scripts_.begin(s, k, argv_);
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
  start(Script::Enqueue, k);
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

namespace {

void checkSettlements(const std::vector<Settlement>& s) {
  if (s.size() > ECHOMQ_BATCH_MAX)
    echomq::fail(ECHOMQ_ETOOLARGE, "more than " + std::to_string(ECHOMQ_BATCH_MAX) + " settlements");
  for (const Settlement& x : s) {
    if (x.id == 0 || x.id > static_cast<uint64_t>(ECHOMQ_ID_MAX)) invalid("job id out of range");
    if (x.token == 0 || x.token > static_cast<uint64_t>(ECHOMQ_ID_MAX)) invalid("token out of range");
    if (!x.ack && x.retry_delay_ms < 0 && x.retry_delay_ms != kRetryBackoff &&
        x.retry_delay_ms != kRetryDeadNow && x.retry_delay_ms != kRetryRelease)
      invalid("retry_delay_ms must be >= 0, ECHOMQ_RETRY_BACKOFF or ECHOMQ_RETRY_DEAD");
    if (!x.ack && x.retry_delay_ms > ECHOMQ_DELAY_MAX_MS) checkRange("retry_delay_ms", x.retry_delay_ms, 0, ECHOMQ_DELAY_MAX_MS);
  }
}

// Reply of take: {status, m, m codes, n, n x 8 job fields, next due}.
TakeResult decodeTake(const redisReply* r) {
  TakeResult out;
  int st = scriptStatus(r, "take");
  uint64_t m = u64(r, 1, "take");
  size_t at = 2 + m;
  for (size_t i = 0; i < m; ++i) out.codes.push_back(static_cast<int>(i64(r, 2 + i, "take code")));
  uint64_t n = u64(r, at, "take");
  if (r->elements != at + 2 + 8 * n) echomq::fail(ECHOMQ_EPROTO, "take: unexpected reply length");
  ClaimResult& c = out.claimed;
  c.jobs.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t b = at + 1 + 8 * i;
    Job& j = c.jobs[i];
    j.id = u64(r, b, "claim id");
    j.group = str(r, b + 1, "claim group");
    j.payload = str(r, b + 2, "claim payload");
    j.token = u64(r, b + 3, "claim token");
    j.lease_until_ms = i64(r, b + 4, "claim lease");
    j.enqueued_at_ms = i64(r, b + 5, "claim enqueued");
    j.max_attempts = static_cast<uint32_t>(u64(r, b + 6, "claim max attempts"));
    j.last_error = str(r, b + 7, "claim last error");
  }
  c.empty = n == 0;
  c.next_due_ms = i64(r, r->elements - 1, "take next due");
  (void)st;
  return out;
}

}  // namespace

TakeResult Client::take(const QueueKeys& k, const std::vector<Settlement>& s, int64_t lease_ms,
                        uint32_t n, uint32_t turns, bool weighted, const char* flags) {
  start(Script::Take, k);
  argv_.own(lease_ms);
  argv_.own(static_cast<long long>(n));
  argv_.own(static_cast<long long>(turns));
  argv_.ref(weighted ? "1" : "0", 1);
  argv_.ref(flags, std::strlen(flags));
  size_t acks = 0;
  for (const Settlement& x : s) acks += x.ack ? 1 : 0;
  argv_.own(static_cast<long long>(acks));
  for (const Settlement& x : s) {
    if (!x.ack) continue;
    argv_.own(std::to_string(x.id));
    argv_.own(std::to_string(x.token));
  }
  argv_.own(static_cast<long long>(s.size() - acks));
  for (const Settlement& x : s) {
    if (x.ack) continue;
    argv_.own(std::to_string(x.id));
    argv_.own(std::to_string(x.token));
    argv_.own(x.retry_delay_ms);
    argv_.ref(x.reason);
  }
  TakeResult res = decodeTake(run(Script::Take).get());
  if (res.codes.size() != s.size()) echomq::fail(ECHOMQ_EPROTO, "take: unexpected code count");
  // The script answers acks first, then fails: back to the caller's order.
  std::vector<int> codes(s.size());
  size_t a = 0, f = acks;
  for (size_t i = 0; i < s.size(); ++i) codes[i] = res.codes[s[i].ack ? a++ : f++];
  res.codes.swap(codes);
  return res;
}

ClaimResult Client::claimTurns(const QueueKeys& k, int64_t lease_ms, uint32_t n, uint32_t turns,
                               bool weighted, const char* flags) {
  // Each call brings back a bounded amount of due work. EMPTY with "next
  // due in 0 ms" means more is waiting to be brought back, so call again:
  // every round removes up to ECHOMQ_RECOVER_MAX entries, so this ends.
  static const std::vector<Settlement> kNone;
  for (;;) {
    ClaimResult res = take(k, kNone, lease_ms, n, turns, weighted, flags).claimed;
    if (!res.empty || res.next_due_ms != 0) return res;
  }
}

ClaimResult Client::claim(const char* queue, int64_t lease_ms, uint32_t max, bool weighted) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  checkRange("max", max, 1, ECHOMQ_WCLAIM_MAX);
  return claimTurns(k, lease_ms, weighted ? max : 1, 1, weighted, "");
}

ClaimResult Client::claimBatch(const char* queue, int64_t lease_ms, uint32_t n, bool weighted) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  checkRange("n", n, 1, ECHOMQ_BATCH_MAX);
  return claimTurns(k, lease_ms, n, n, weighted, "");
}

TakeResult Client::settleClaim(const char* queue, const std::vector<Settlement>& s,
                               int64_t lease_ms, uint32_t n, bool weighted, const char* flags) {
  const QueueKeys& k = keysFor(queue);
  checkRange("n", n, 0, ECHOMQ_BATCH_MAX);
  if (n > 0) checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  checkSettlements(s);
  if (s.empty() && n == 0) invalid("nothing to settle and nothing to claim");
  TakeResult res = take(k, s, n > 0 ? lease_ms : 0, n, n > 0 ? n : 1, weighted, flags);
  if (n > 0 && res.claimed.empty && res.claimed.next_due_ms == 0)
    res.claimed = claimTurns(k, lease_ms, n, n, weighted, flags);
  return res;
}

ClaimResult Client::bclaim(const char* queue, int64_t lease_ms, int64_t timeout_ms) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  checkRange("timeout_ms", timeout_ms, 1, 24LL * 3600 * 1000);
  const std::string& wake = k.key("wake");
  int64_t deadline = steadyMs() + timeout_ms;
  struct Cancellable {
    Connection& c;
    explicit Cancellable(Connection& conn) : c(conn) { c.beginCancellable(); }
    ~Cancellable() { c.endCancellable(); }
  } guard(conn_);
  for (;;) {
    // "w": pass a wake-up on to the next sleeper while work remains.
    ClaimResult res = claimTurns(k, lease_ms, 1, 1, false, "w");
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

bool Client::waitForWork(const char* queue, int64_t timeout_ms) {
  const QueueKeys& k = keysFor(queue);
  checkRange("timeout_ms", timeout_ms, 1, 24LL * 3600 * 1000);
  struct Cancellable {
    Connection& c;
    explicit Cancellable(Connection& conn) : c(conn) { c.beginCancellable(); }
    ~Cancellable() { c.endCancellable(); }
  } guard(conn_);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", static_cast<double>(timeout_ms) / 1000.0);
  Argv b;
  b.ref("BLPOP", 5);
  b.ref(k.key("wake"));
  b.ref(secs, std::strlen(secs));
  ReplyPtr w = conn_.interruptibleWait(b, static_cast<int>(timeout_ms) + opts_.timeouts.command_ms);
  if (w->type == REDIS_REPLY_ERROR) throwReplyError(w.get(), "BLPOP");
  return w->type == REDIS_REPLY_ARRAY;
}

int Client::settleOne(const char* queue, const Settlement& s, const char* what) {
  const QueueKeys& k = keysFor(queue);
  checkSettlements({s});
  int code = take(k, {s}, 0, 0, 1, false, "").codes.at(0);
  if (code == ECHOMQ_ENOTFOUND)
    echomq::fail(code, std::string(what) + ": job " + std::to_string(s.id) + " not found");
  if (code == ECHOMQ_ESTALE)
    echomq::fail(code, std::string(what) + ": job " + std::to_string(s.id) + " is not leased with token " +
                           std::to_string(s.token) + " (its lease was lost: it expired and was reclaimed, or it was settled)");
  return code;
}

void Client::ack(const char* queue, uint64_t id, uint64_t token) {
  settleOne(queue, Settlement{id, token, true, 0, {}}, "ack");
}

size_t Client::ackMany(const char* queue, const uint64_t* ids, const uint64_t* tokens, size_t n,
                       int* statuses) {
  const QueueKeys& k = keysFor(queue);
  checkRange("job count", static_cast<long long>(n), 1, ECHOMQ_WCLAIM_MAX);
  if (!ids || !tokens) invalid("ids or tokens is NULL");
  std::vector<Settlement> s(n);
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == 0) invalid("job id must be >= 1");
    if (tokens[i] == 0) invalid("token must be >= 1");
    s[i].id = ids[i];
    s[i].token = tokens[i];
  }
  checkSettlements(s);
  TakeResult r = take(k, s, 0, 0, 1, false, "");
  size_t acked = 0;
  for (size_t i = 0; i < n; ++i) {
    if (r.codes[i] == ECHOMQ_OK) ++acked;
    if (statuses) statuses[i] = r.codes[i];
  }
  return acked;
}

ClaimResult Client::ackClaim(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  Settlement s{id, token, true, 0, {}};
  checkSettlements({s});
  // "s": a refused ack claims nothing.
  TakeResult r = take(k, {s}, lease_ms, 1, 1, false, "s");
  if (r.codes[0] != ECHOMQ_OK) {
    // Report the refusal as ack() does (no write happened).
    settleOne(queue, s, "ack");
  }
  // The ack is done; more due work waits to be brought back (see claimTurns).
  if (r.claimed.empty && r.claimed.next_due_ms == 0) return claimTurns(k, lease_ms, 1, 1, false, "");
  return r.claimed;
}

int Client::fail(const char* queue, uint64_t id, uint64_t token, const char* reason,
                 int64_t retry_delay_ms) {
  if (retry_delay_ms != ECHOMQ_RETRY_BACKOFF)
    checkRange("retry_delay_ms", retry_delay_ms, 0, ECHOMQ_DELAY_MAX_MS);
  size_t rlen = reason ? std::strlen(reason) : 0;
  rlen = std::min<size_t>(rlen, ECHOMQ_REASON_MAX);
  return settleOne(queue, Settlement{id, token, false, retry_delay_ms, std::string(reason ? reason : "", rlen)},
                   "fail");
}

int64_t Client::extend(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms) {
  int st = ECHOMQ_OK;
  int64_t d = extendMany(queue, &id, &token, 1, lease_ms, &st);
  if (st == ECHOMQ_ENOTFOUND) echomq::fail(st, "extend: job " + std::to_string(id) + " not found");
  if (st == ECHOMQ_ESTALE)
    echomq::fail(st, "extend: job " + std::to_string(id) + " is not leased with token " +
                         std::to_string(token) + " (its lease was lost)");
  return d;
}

int64_t Client::extendMany(const char* queue, const uint64_t* ids, const uint64_t* tokens, size_t n,
                           int64_t lease_ms, int* statuses) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, ECHOMQ_LEASE_MAX_MS);
  checkRange("job count", static_cast<long long>(n), 1, ECHOMQ_BATCH_MAX);
  if (!ids || !tokens) invalid("ids or tokens is NULL");
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == 0) invalid("job id must be >= 1");
    if (tokens[i] == 0) invalid("token must be >= 1");
  }
  start(Script::Extend, k);
  argv_.own(lease_ms);
  argv_.own(static_cast<long long>(n));
  for (size_t i = 0; i < n; ++i) {
    argv_.own(std::to_string(ids[i]));
    argv_.own(std::to_string(tokens[i]));
  }
  ReplyPtr r = run(Script::Extend);
  scriptStatus(r.get(), "extend");
  if (r->elements != n + 2) echomq::fail(ECHOMQ_EPROTO, "extend: unexpected reply length");
  for (size_t i = 0; i < n; ++i)
    if (statuses) statuses[i] = static_cast<int>(i64(r.get(), i + 2, "extend"));
  return i64(r.get(), 1, "extend");
}

void Client::laneSetting(Script s, const char* queue, const char* group, const char* what,
                         long long value, long long hi) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  checkRange(what, value, 0, hi);
  start(s, k);
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
  start(Script::Defaults, k);
  argv_.ref(what, std::strlen(what));
  argv_.own(static_cast<long long>(value));
  scriptStatus(run(Script::Defaults).get(), "defaults");
}

void Client::setRate(const char* queue, const char* group, uint32_t jobs, int64_t period_ms,
                     uint32_t burst) {
  const QueueKeys& k = keysFor(queue);
  if (group) checkGroupName(group);
  checkRange("rate jobs", jobs, 0, ECHOMQ_RATE_JOBS_MAX);
  checkRange("rate period_ms", period_ms, 1, ECHOMQ_RATE_PERIOD_MAX_MS);
  checkRange("rate burst", burst, 0, ECHOMQ_RATE_JOBS_MAX);
  start(Script::Rate, k);
  argv_.ref(group ? "lane" : "default", group ? 4 : 7);
  argv_.ref(group ? group : "", group ? std::strlen(group) : 0);
  argv_.own(static_cast<long long>(jobs));
  argv_.own(period_ms);
  argv_.own(static_cast<long long>(burst));
  scriptStatus(run(Script::Rate).get(), "rate");
}

void Client::throttle(const char* queue, const char* group, int64_t ms) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  checkRange("throttle ms", ms, 1, ECHOMQ_DELAY_MAX_MS);
  start(Script::Rate, k);
  argv_.ref("throttle", 8);
  argv_.ref(group, std::strlen(group));
  argv_.own(ms);
  scriptStatus(run(Script::Rate).get(), "throttle");
}

void Client::setCap(const char* queue, const char* group, uint64_t cap) {
  const QueueKeys& k = keysFor(queue);
  if (group) checkGroupName(group);
  if (cap > ECHOMQ_CAP_MAX) checkRange("cap", ECHOMQ_CAP_MAX + 1LL, 0, ECHOMQ_CAP_MAX);
  start(Script::Cap, k);
  argv_.ref(group ? group : "", group ? std::strlen(group) : 0);
  argv_.own(std::to_string(cap));
  scriptStatus(run(Script::Cap).get(), "cap");
}

echomq_queue_stats Client::stats(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  start(Script::Stats, k);
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
  constexpr size_t kFields = 21;
  if (r->elements != 2 + kFields * n) echomq::fail(ECHOMQ_EPROTO, "lanes: unexpected reply length");
  std::vector<echomq_lane_info> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t b = 2 + kFields * i;
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
    l.rate_jobs = static_cast<uint32_t>(u64(r, b + 13, "lanes"));
    l.rate_period_ms = i64(r, b + 14, "lanes");
    l.rate_burst = static_cast<uint32_t>(u64(r, b + 15, "lanes"));
    l.rate_is_default = static_cast<int>(i64(r, b + 16, "lanes"));
    l.tokens = std::strtod(str(r, b + 17, "lanes").c_str(), nullptr);
    l.next_token_at_ms = i64(r, b + 18, "lanes");
    l.cap = u64(r, b + 19, "lanes");
    l.cap_is_default = static_cast<int>(i64(r, b + 20, "lanes"));
  }
  return out;
}
}  // namespace

echomq_lane_info Client::lane(const char* queue, const char* group) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  start(Script::Lanes, k);
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
  start(Script::Lanes, k);
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
  start(Script::Dead, k);
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
  start(Script::Redrive, k);
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
    start(Script::Redrive, k);
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
  start(Script::Verify, k);
  // A whole-queue walk may take longer than an ordinary command.
  ReplyPtr r = run(Script::Verify, std::max(opts_.timeouts.command_ms, 60000));
  scriptStatus(r.get(), "verify");
  std::vector<std::string> out;
  for (size_t i = 1; i < r->elements; ++i) out.push_back(str(r.get(), i, "verify"));
  return out;
}

std::string Client::repair(const char* queue, bool apply, const std::string& cursor, size_t count,
                           std::vector<std::string>& lines) {
  const QueueKeys& k = keysFor(queue);
  checkRange("repair count", static_cast<long long>(count), 1, ECHOMQ_BATCH_MAX);
  const Script s = apply ? Script::Repair : Script::RepairPlan;
  start(s, k);
  argv_.ref(cursor);
  argv_.own(static_cast<long long>(count));
  // A lane's pending set is read whole: allow a slow step.
  ReplyPtr r = run(s, std::max(opts_.timeouts.command_ms, 60000));
  scriptStatus(r.get(), "repair");
  std::string next = str(r.get(), 1, "repair");
  for (size_t i = 2; i < r->elements; ++i) lines.push_back(str(r.get(), i, "repair"));
  return next;
}

}  // namespace echomq
