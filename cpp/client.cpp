#include "client.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "args.hpp"
#include "clock.hpp"
#include "error.hpp"
#include "job_meta.hpp"
#include "job_record.hpp"
#include "nonce.hpp"
#include "replies_gen.hpp"
#include "script_reply.hpp"
#include "validate.hpp"

namespace echomq {
namespace {

constexpr size_t kRedriveChunk = 1000;

}  // namespace

void Client::connect(const std::string& url) {
  Endpoint ep = parseUrl(url);
  mergeTls(ep.tls, opts_.tls);
  connect(ep);
}

void Client::connect(const Endpoint& ep) {
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
  // take marks itself: a claim that found nothing and settled nothing has
  // nothing for its caller to lose.
  if (!scripts_.readOnly(s) && s != Script::Take) wrote_ = true;
  return scripts_.run(conn_, s, argv_, read_timeout_ms);
}

std::string Client::confirmWrites() {
  const Durability& d = opts_.durability;
  if (!wrote_ || !d.on()) return {};
  wrote_ = false;
  try {
    Argv a;
    const char* cmd = d.aof ? "WAITAOF" : "WAIT";
    a.ref(cmd, std::strlen(cmd));
    if (d.aof) a.own(1LL);  // the local AOF
    a.own(static_cast<long long>(d.replicas));
    a.own(static_cast<long long>(d.timeout_ms));
    // The server blocks up to the timeout: read for longer than that.
    ReplyPtr r = conn_.command(a, d.timeout_ms + opts_.timeouts.command_ms);
    if (r->type == REDIS_REPLY_ERROR) {
      std::string why = std::string("the server refused the wait: ") + r->str;
      // Redis 7.0 has no WAITAOF: say so rather than leave a bare error.
      if (d.aof && std::strstr(r->str, "unknown command"))
        why += " (WAITAOF needs Valkey 7.2 or Redis 7.2 or later; wait_aof cannot be confirmed here)";
      return why;
    }
    long long local = 1, replicas = 0;
    if (d.aof && r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
      local = r->element[0]->integer;
      replicas = r->element[1]->integer;
    } else if (!d.aof && r->type == REDIS_REPLY_INTEGER) {
      replicas = r->integer;
    } else {
      return "unexpected reply to the wait";
    }
    if (local >= 1 && replicas >= d.replicas) return {};
    std::string why = "not confirmed in " + std::to_string(d.timeout_ms) + " ms:";
    if (d.aof) why += local >= 1 ? " local AOF fsynced," : " local AOF not fsynced,";
    return why + " " + std::to_string(replicas) + " of " + std::to_string(d.replicas) + " replicas";
  } catch (const Error& e) {
    return std::string("the wait failed (the write happened): ") + e.what();
  }
}

ReplyPtr Client::runEnqueue(const char* queue, const std::vector<NewJob>& jobs, int64_t delay_ms,
                            uint32_t max_attempts, int64_t window_ms, int64_t keep_ms, uint64_t keep_last,
                            uint64_t estimate, int64_t at_ms, const JobLimits& limits) {
  checkKeep(keep_ms, keep_last);
  checkEstimate(estimate);
  checkLimits(limits);
  const QueueKeys& k = keysFor(queue);
  checkEnqueue(jobs, delay_ms, max_attempts, at_ms);
  // One script call: the batch is atomic, and kBatchMax bounds how
  // long it holds the server.
  using L = args::Enqueue;
  ArgWriter<L> w = call<L>(Script::Enqueue, k);
  w.fixed(delay_ms, max_attempts);
  w.section<L::Jobs>(jobs.size());
  for (const NewJob& j : jobs) w.row<L::Jobs>(w.bytes(j.group, j.group_len), w.bytes(j.payload, j.payload_len));
  bool meta = false;  // names and headers go only when a job has them
  for (const NewJob& j : jobs) meta = meta || j.meta_len > 0;
  if (window_ms > 0) {
    w.option<L::Keys>(window_ms);
    for (const NewJob& j : jobs) w.perRow<L::Keys>(w.bytes(j.key, j.key ? j.key_len : 0));
  }
  if (keep_ms != 0 || keep_last != 0) w.option<L::Keep>(keep_ms, keep_last);
  if (estimate != 0) w.option<L::Est>(estimate);
  if (at_ms > 0) w.option<L::At>(at_ms);
  if (limits.any())
    w.option<L::Life>(limits.timeout_ms, limits.expires_at_ms, limits.ttl_ms, limits.expire_drop ? "1" : "0");
  if (meta) {
    w.option<L::Meta>();
    for (const NewJob& j : jobs) w.perRow<L::Meta>(w.bytes(j.meta, j.meta ? j.meta_len : 0));
  }
  w.done();
  return run(Script::Enqueue);
}

void Client::checkEnqueue(const std::vector<NewJob>& jobs, int64_t delay_ms,
                          uint32_t max_attempts, int64_t at_ms) const {
  if (jobs.empty()) invalid("batch is empty");
  if (jobs.size() > kBatchMax)
    echomq::fail(kTooLarge, "batch holds more than " + std::to_string(kBatchMax) + " jobs");
  checkRange("delay_ms", delay_ms, 0, kDelayMaxMs);
  checkRange("at_ms", at_ms, 0, kIdMax);
  if (at_ms > 0 && delay_ms > 0) invalid("delay_ms and at_ms exclude each other");
  checkRange("max_attempts", max_attempts, 0, kAttemptsMax);
  for (const NewJob& j : jobs) {
    checkLaneBytes(j.group, j.group_len);
    if (j.payload_len > 0 && !j.payload) invalid("payload is NULL with a non-zero length");
    if (j.payload_len > opts_.max_payload)
      echomq::fail(kTooLarge, "payload of " + std::to_string(j.payload_len) +
                                 " bytes is over the limit of " +
                                 std::to_string(opts_.max_payload));
    if (j.meta_len > kJobMetaMax) invalid("job name and headers are over " + std::to_string(kJobMetaMax) + " bytes");
    if (j.key_len > kDedupKeyMax)
      invalid("idempotency key is longer than " + std::to_string(kDedupKeyMax) + " bytes");
  }
}

std::vector<uint64_t> Client::enqueue(const char* queue, const std::vector<NewJob>& jobs,
                                      int64_t delay_ms, uint32_t max_attempts, int64_t keep_ms,
                                      uint64_t keep_last, uint64_t estimate, int64_t at_ms,
                                      const JobLimits& limits) {
  ReplyPtr r = runEnqueue(queue, jobs, delay_ms, max_attempts, 0, keep_ms, keep_last, estimate, at_ms, limits);
  scriptStatus(r.get(), "enqueue");
  uint64_t first = u64(r.get(), 1 + reply::Enqueued::first, "enqueue");
  std::vector<uint64_t> ids(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) ids[i] = first + i;
  return ids;
}

void checkSettlement(const Settlement& x) {
  if (x.id == 0 || x.id > static_cast<uint64_t>(kIdMax)) invalid("job id out of range");
  if (x.token == 0 || x.token > static_cast<uint64_t>(kIdMax)) invalid("token out of range");
  if (!x.ack && x.retry_delay_ms != kRetryBackoff && x.retry_delay_ms != kRetryDeadNow &&
      x.retry_delay_ms != kRetryRelease)
    checkRange("retry_delay_ms", x.retry_delay_ms, 0, kDelayMaxMs);
  if (!x.ack && !x.result.empty()) invalid("a result goes with an ack only");
  if (x.result.size() > kResultMax)
    echomq::fail(kTooLarge, "result of " + std::to_string(x.result.size()) + " bytes is over the limit of " +
                                std::to_string(kResultMax));
  if (x.cost > 0) {
    if (x.cost > static_cast<uint64_t>(kIdMax)) invalid("cost out of range");
    checkGroupName(x.lane.c_str());
  }
}

namespace {

void checkSettlements(const std::vector<Settlement>& s) {
  if (s.size() > kBatchMax)
    echomq::fail(kTooLarge, "more than " + std::to_string(kBatchMax) + " settlements");
  for (const Settlement& x : s) checkSettlement(x);
}

// Reply of take: {status, m, m codes, n, n job rows, next due}.
TakeResult decodeTake(const redisReply* r) {
  using F = reply::Job;
  TakeResult out;
  int st = scriptStatus(r, "take");
  uint64_t m = u64(r, 1, "take");
  size_t at = 2 + m;
  for (size_t i = 0; i < m; ++i) out.codes.push_back(static_cast<int>(i64(r, 2 + i, "take code")));
  uint64_t n = u64(r, at, "take");
  // Then the next-due time, and with time limits their rows (lua/take.lua).
  const size_t end = at + 2 + F::kFields * n;
  if (r->elements != end && (r->elements < end + 1 || r->elements != end + 1 + reply::Limit::kFields * u64(r, end, "take")))
    echomq::fail(kProto, "take: unexpected reply length");
  ClaimResult& c = out.claimed;
  c.jobs.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t b = at + 1 + F::kFields * i;
    Job& j = c.jobs[i];
    j.id = u64(r, b + F::id, "claim id");
    j.lease_until_ms = i64(r, b + F::lease_until, "claim lease");
    readDelivery(view(r, b + F::delivery, "claim delivery"), j);
    readRecord(view(r, b + F::record, "claim record"), j);
  }
  c.empty = n == 0;
  c.next_due_ms = i64(r, end - 1, "take next due");
  for (size_t b = end + 1; b < r->elements; b += reply::Limit::kFields) {
    const uint64_t row = u64(r, b + reply::Limit::row, "take limit row");
    if (row < 1 || row > n) echomq::fail(kProto, "take: a time limit of no job claimed");
    c.jobs[row - 1].timeout_ms = i64(r, b + reply::Limit::timeout_ms, "take time limit");
  }
  (void)st;
  return out;
}

}  // namespace

TakeResult Client::take(const QueueKeys& k, const std::vector<Settlement>& s, int64_t lease_ms,
                        uint32_t n, uint32_t turns, bool weighted, const char* flags,
                        const std::vector<std::pair<std::string, uint64_t>>* extra) {
  using L = args::Take;
  ArgWriter<L> w = call<L>(Script::Take, k);
  // A fresh nonce per call: the tokens of this call's claims are made from
  // it, so a claim lost in a failover never shares a token with a later one.
  w.fixed(lease_ms, n, turns, weighted ? "1" : "0", flags, freshNonce());
  size_t acks = 0;
  for (const Settlement& x : s) acks += x.ack ? 1 : 0;
  w.section<L::Acks>(acks);
  for (const Settlement& x : s)
    if (x.ack) w.row<L::Acks>(x.id, x.token);
  w.section<L::Fails>(s.size() - acks);
  for (const Settlement& x : s)
    if (!x.ack) w.row<L::Fails>(x.id, x.token, x.retry_delay_ms, x.reason);
  // Charges, one per lane, then results of acks, then results dropped
  // (lua/args.txt: optional sections, in that order). A section is left out
  // when it is empty and none follows.
  std::vector<std::pair<const std::string*, uint64_t>> charges;
  auto addCharge = [&](const std::string& lane, uint64_t cost) {
    if (cost == 0) return;
    for (auto& c : charges)
      if (*c.first == lane) {
        c.second = std::min<uint64_t>(c.second + cost, static_cast<uint64_t>(kIdMax));
        return;
      }
    charges.emplace_back(&lane, cost);
  };
  for (const Settlement& x : s) addCharge(x.lane, x.cost);
  if (extra)
    for (const auto& [lane, cost] : *extra) addCharge(lane, cost);
  size_t results = 0, drops = 0;
  for (const Settlement& x : s) {
    results += x.ack && !x.result.empty() ? 1 : 0;
    drops += x.ack && !x.dropped.empty() ? 1 : 0;
  }
  if (!charges.empty() || results > 0 || drops > 0) {
    w.section<L::Charges>(charges.size());
    for (const auto& [lane, cost] : charges) w.row<L::Charges>(*lane, cost);
  }
  if (results > 0 || drops > 0) {
    w.section<L::Results>(results);
    for (const Settlement& x : s)
      if (x.ack && !x.result.empty()) w.row<L::Results>(x.id, x.result);
  }
  if (drops > 0) {  // rare: a result that could not be kept (the worker engine)
    w.section<L::Drops>(drops);
    for (const Settlement& x : s)
      if (x.ack && !x.dropped.empty()) w.row<L::Drops>(x.id, x.dropped);
  }
  w.done();
  TakeResult res = decodeTake(run(Script::Take).get());
  if (res.codes.size() != s.size()) echomq::fail(kProto, "take: unexpected code count");
  if (!s.empty() || !res.claimed.jobs.empty()) wrote_ = true;
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
  // every round removes up to kRecoverMax entries, so this ends.
  static const std::vector<Settlement> kNone;
  for (;;) {
    ClaimResult res = take(k, kNone, lease_ms, n, turns, weighted, flags).claimed;
    if (!res.empty || res.next_due_ms != 0) return res;
  }
}

ClaimResult Client::claim(const char* queue, int64_t lease_ms, uint32_t max, bool weighted) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, kLeaseMaxMs);
  checkRange("max", max, 1, kWclaimMax);
  return claimTurns(k, lease_ms, weighted ? max : 1, 1, weighted, "");
}

ClaimResult Client::claimBatch(const char* queue, int64_t lease_ms, uint32_t n, bool weighted) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, kLeaseMaxMs);
  checkRange("n", n, 1, kBatchMax);
  return claimTurns(k, lease_ms, n, n, weighted, "");
}

TakeResult Client::settleClaim(const char* queue, const std::vector<Settlement>& s,
                               int64_t lease_ms, uint32_t n, bool weighted, const char* flags) {
  const QueueKeys& k = keysFor(queue);
  checkRange("n", n, 0, kBatchMax);
  if (n > 0) checkRange("lease_ms", lease_ms, 1, kLeaseMaxMs);
  checkSettlements(s);
  if (s.empty() && n == 0) invalid("nothing to settle and nothing to claim");
  TakeResult res = take(k, s, n > 0 ? lease_ms : 0, n, n > 0 ? n : 1, weighted, flags);
  if (n > 0 && res.claimed.empty && res.claimed.next_due_ms == 0)
    res.claimed = claimTurns(k, lease_ms, n, n, weighted, flags);
  return res;
}

ClaimResult Client::bclaim(const char* queue, int64_t lease_ms, int64_t timeout_ms) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, kLeaseMaxMs);
  checkRange("timeout_ms", timeout_ms, 1, kWaitMaxMs);
  const std::string& wake = k.key("wake");
  int64_t deadline = steadyMs() + timeout_ms;
  Connection::CancellableScope guard(conn_);
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
    blockPop(wake, wait);
  }
}

bool Client::waitForWork(const char* queue, int64_t timeout_ms) {
  const QueueKeys& k = keysFor(queue);
  checkRange("timeout_ms", timeout_ms, 1, kWaitMaxMs);
  Connection::CancellableScope guard(conn_);
  return blockPop(k.key("wake"), timeout_ms);
}

bool Client::blockPop(const std::string& key, int64_t wait_ms) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", static_cast<double>(wait_ms) / 1000.0);
  Argv b;
  b.ref("BLPOP", 5);
  b.ref(key);
  b.ref(secs, std::strlen(secs));
  // The read waits the server-side wait plus the usual command time.
  ReplyPtr w = conn_.interruptibleWait(b, static_cast<int>(wait_ms) + opts_.timeouts.command_ms);
  if (w->type == REDIS_REPLY_ERROR) throwReplyError(w.get(), "BLPOP");
  return w->type == REDIS_REPLY_ARRAY;
}

int Client::settleOne(const char* queue, const Settlement& s, const char* what) {
  const QueueKeys& k = keysFor(queue);
  checkSettlements({s});
  int code = take(k, {s}, 0, 0, 1, false, "").codes.at(0);
  if (code == kNotFound)
    echomq::fail(code, std::string(what) + ": job " + std::to_string(s.id) + " not found");
  if (code == kStale) echomq::fail(code, std::string(what) + ": " + staleReason(queue, s));
  return code;
}

int Client::ack(const char* queue, uint64_t id, uint64_t token) {
  return settleOne(queue, Settlement{id, token, true, 0, {}, {}}, "ack");
}

size_t Client::ackMany(const char* queue, const uint64_t* ids, const uint64_t* tokens, size_t n,
                       int* statuses) {
  const QueueKeys& k = keysFor(queue);
  checkRange("job count", static_cast<long long>(n), 1, kWclaimMax);
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
    if (r.codes[i] == kOk) ++acked;
    if (statuses) statuses[i] = r.codes[i];
  }
  return acked;
}

ClaimResult Client::ackClaim(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, kLeaseMaxMs);
  Settlement s{id, token, true, 0, {}, {}};
  checkSettlements({s});
  // "s": a refused ack claims nothing.
  TakeResult r = take(k, {s}, lease_ms, 1, 1, false, "s");
  if (r.codes[0] != kOk) {
    // Report the refusal as ack() does (no write happened).
    settleOne(queue, s, "ack");
  }
  // The ack is done; more due work waits to be brought back (see claimTurns).
  if (r.claimed.empty && r.claimed.next_due_ms == 0) return claimTurns(k, lease_ms, 1, 1, false, "");
  return r.claimed;
}

int Client::fail(const char* queue, uint64_t id, uint64_t token, const char* reason,
                 int64_t retry_delay_ms) {
  if (retry_delay_ms != kRetryBackoff && retry_delay_ms != kRetryDeadNow)
    checkRange("retry_delay_ms", retry_delay_ms, 0, kDelayMaxMs);
  size_t rlen = reason ? std::strlen(reason) : 0;
  rlen = std::min<size_t>(rlen, kReasonMax);
  return settleOne(queue, Settlement{id, token, false, retry_delay_ms, std::string(reason ? reason : "", rlen), {}},
                   "fail");
}

int64_t Client::extend(const char* queue, uint64_t id, uint64_t token, int64_t lease_ms, int* status) {
  int st = kOk;
  int64_t d = extendMany(queue, &id, &token, 1, lease_ms, &st);
  if (st == kNotFound) echomq::fail(st, "extend: job " + std::to_string(id) + " not found");
  if (st == kStale) echomq::fail(st, "extend: " + staleReason(queue, Settlement{id, token, true, 0, {}, {}}));
  if (st == kTimeLimit)
    echomq::fail(st, "extend: job " + std::to_string(id) + " ran past its time limit: its lease was not extended");
  if (status) *status = st;
  return d;
}

int64_t Client::extendMany(const char* queue, const uint64_t* ids, const uint64_t* tokens, size_t n,
                           int64_t lease_ms, int* statuses) {
  const QueueKeys& k = keysFor(queue);
  checkRange("lease_ms", lease_ms, 1, kLeaseMaxMs);
  checkRange("job count", static_cast<long long>(n), 1, kBatchMax);
  if (!ids || !tokens) invalid("ids or tokens is NULL");
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == 0) invalid("job id must be >= 1");
    if (tokens[i] == 0) invalid("token must be >= 1");
  }
  using L = args::Extend;
  ArgWriter<L> w = call<L>(Script::Extend, k);
  w.fixed(lease_ms);
  w.section<L::Jobs>(n);
  for (size_t i = 0; i < n; ++i) w.row<L::Jobs>(ids[i], tokens[i]);
  w.done();
  ReplyPtr r = run(Script::Extend);
  scriptStatus(r.get(), "extend");
  if (r->elements != 1 + reply::Extended::kFields + n) echomq::fail(kProto, "extend: unexpected reply length");
  for (size_t i = 0; i < n; ++i)
    if (statuses) statuses[i] = static_cast<int>(i64(r.get(), 1 + reply::Extended::kFields + i, "extend"));
  return i64(r.get(), 1 + reply::Extended::deadline, "extend");
}

template <class L>
void Client::laneSetting(Script s, const char* queue, const char* group, const char* what,
                         long long value, long long hi) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  checkRange(what, value, 0, hi);
  call<L>(s, k).fixed(group, value);
  scriptStatus(run(s).get(), what);
}

void Client::setWeight(const char* queue, const char* group, uint32_t weight) {
  laneSetting<args::Weight>(Script::Weight, queue, group, "weight", weight, kWeightMax);
}

void Client::setLimit(const char* queue, const char* group, uint32_t limit) {
  laneSetting<args::Limit>(Script::Limit, queue, group, "limit", limit, kLimitMax);
}

void Client::setPaused(const char* queue, const char* group, bool paused) {
  laneSetting<args::Pause>(Script::Pause, queue, group, "pause", paused ? 1 : 0, 1);
}

void Client::setDefault(const char* queue, QueueDefault what, uint32_t value) {
  const QueueKeys& k = keysFor(queue);
  const char* field = "weight";
  switch (what) {
    case QueueDefault::Weight:
      checkRange("default weight", value, 1, kWeightMax);
      break;
    case QueueDefault::Limit:
      checkRange("default limit", value, 0, kLimitMax);
      field = "limit";
      break;
    case QueueDefault::MaxAttempts:
      checkRange("default max attempts", value, 1, kAttemptsMax);
      field = "maxatt";
      break;
  }
  call<args::Defaults>(Script::Defaults, k).fixed(field, value);
  scriptStatus(run(Script::Defaults).get(), "defaults");
}

void Client::setRate(const char* queue, const char* group, uint32_t jobs, int64_t period_ms,
                     uint32_t burst) {
  const QueueKeys& k = keysFor(queue);
  if (group) checkGroupName(group);
  checkRange("rate jobs", jobs, 0, kRateJobsMax);
  checkRange("rate period_ms", period_ms, 1, kRatePeriodMaxMs);
  checkRange("rate burst", burst, 0, kRateJobsMax);
  if (group)
    call<args::Rate::Lane>(Script::Rate, k).fixed(group, jobs, period_ms, burst);
  else
    call<args::Rate::Default>(Script::Rate, k).fixed(jobs, period_ms, burst);
  scriptStatus(run(Script::Rate).get(), "rate");
}

template <class L>
uint64_t Client::queueMode(Script s, const char* queue, const char* what, const char* arg,
                           int64_t value, int64_t hi) {
  const QueueKeys& k = keysFor(queue);
  checkRange(arg, value, -1, hi);
  call<L>(s, k).fixed(value);
  ReplyPtr r = run(s);
  scriptStatus(r.get(), what);
  if (r->elements != 2) echomq::fail(kProto, std::string(what) + ": unexpected reply length");
  return static_cast<uint64_t>(i64(r.get(), 1, what));
}

uint64_t Client::costMode(const char* queue, int64_t quantum) {
  return queueMode<args::Costmode>(Script::CostMode, queue, "cost mode", "cost quantum", quantum, kIdMax);
}

uint64_t Client::waitFigures(const char* queue, int64_t window_s) {
  return queueMode<args::Waitconf>(Script::WaitConf, queue, "wait figures", "wait figures window", window_s, kWaitWindowMaxS);
}

void checkEstimate(uint64_t estimate) {
  if (estimate > static_cast<uint64_t>(kIdMax)) invalid("cost estimate is over " + std::to_string(kIdMax));
}

void Client::charge(const char* queue, const char* group, uint64_t cost) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  checkRange("cost", static_cast<long long>(std::min<uint64_t>(cost, kIdMax + 1ULL)), 0, kIdMax);
  if (cost == 0) return;
  const std::vector<std::pair<std::string, uint64_t>> one{{group, cost}};
  static const std::vector<Settlement> kNone;
  take(k, kNone, 0, 0, 1, false, "", &one);
}

void Client::throttle(const char* queue, const char* group, int64_t ms) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  checkRange("throttle ms", ms, 1, kDelayMaxMs);
  call<args::Rate::Throttle>(Script::Rate, k).fixed(group, ms);
  scriptStatus(run(Script::Rate).get(), "throttle");
}

void Client::setCap(const char* queue, const char* group, uint64_t cap) {
  const QueueKeys& k = keysFor(queue);
  if (group) checkLaneName(group);
  if (cap > kCapMax) checkRange("cap", kCapMax + 1LL, 0, kCapMax);
  call<args::Cap>(Script::Cap, k).fixed(group ? group : "", cap);
  scriptStatus(run(Script::Cap).get(), "cap");
}

QueueStats Client::stats(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  call<args::Stats::All>(Script::Stats, k).fixed();
  ReplyPtr r = run(Script::Stats);
  scriptStatus(r.get(), "stats");
  using F = reply::Stats;
  const redisReply* a = r.get();
  if (a->elements != 1 + F::kFields) echomq::fail(kProto, "stats: unexpected reply length");
  // The row follows the status; its counters by field, the rest by hand.
  using C = uint64_t QueueStats::*;
  static constexpr std::pair<C, size_t> kCounts[] = {
      {&QueueStats::lanes, F::lanes}, {&QueueStats::ring, F::ring}, {&QueueStats::pending, F::pending},
      {&QueueStats::leased, F::leased}, {&QueueStats::delayed, F::delayed}, {&QueueStats::dead, F::dead},
      {&QueueStats::paused, F::paused}, {&QueueStats::enqueued_total, F::enqueued},
      {&QueueStats::claimed_total, F::claimed}, {&QueueStats::acked_total, F::acked},
      {&QueueStats::failed_total, F::failed}, {&QueueStats::dead_total, F::dead_total},
      {&QueueStats::canceled_total, F::canceled}, {&QueueStats::expired_total, F::expired},
      {&QueueStats::bursting, F::bursting}};
  QueueStats s;
  for (const auto& [field, f] : kCounts) s.*field = u64(a, 1 + f, "stats");
  auto u32 = [&](size_t f) { return static_cast<uint32_t>(u64(a, 1 + f, "stats")); };
  s.default_weight = u32(F::default_weight);
  s.default_limit = u32(F::default_limit);
  s.default_max_attempts = u32(F::default_max_attempts);
  s.server_time_ms = i64(a, 1 + F::server_time, "stats");
  s.tenants = u64(a, 1 + F::tenants, "stats");
  // A queue of many names counts its tenants in bounded steps (lua/stats.lua).
  for (std::string cursor = str(a, 1 + F::tenant_cursor, "stats"); !cursor.empty();) {
    call<args::Stats::Count>(Script::Stats, k).fixed(cursor);
    ReplyPtr step = run(Script::Stats);
    scriptStatus(step.get(), "stats");
    if (step->elements != 4) echomq::fail(kProto, "stats: unexpected reply length");
    const uint64_t entries = u64(step.get(), 1, "stats");
    s.lanes = s.lanes > entries ? s.lanes - entries : 0;
    s.tenants += u64(step.get(), 2, "stats");
    cursor = str(step.get(), 3, "stats");
  }
  return s;
}

namespace {
std::vector<LaneInfo> decodeLanes(const redisReply* r) {
  scriptStatus(r, "lanes");
  using F = reply::Lane;
  uint64_t n = u64(r, 1, "lanes");
  if (r->elements != 2 + F::kFields * n) echomq::fail(kProto, "lanes: unexpected reply length");
  std::vector<LaneInfo> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t b = 2 + F::kFields * i;
    auto u = [&](size_t f) { return u64(r, b + f, "lanes"); };
    auto flag = [&](size_t f) { return i64(r, b + f, "lanes") != 0; };
    LaneInfo& l = out[i];
    l.group = str(r, b + F::group, "lanes");
    l.depth = u(F::depth);
    l.active = u(F::active);
    l.limit = static_cast<uint32_t>(u(F::limit));
    l.weight = static_cast<uint32_t>(u(F::weight));
    l.limit_is_default = flag(F::limit_is_default);
    l.weight_is_default = flag(F::weight_is_default);
    l.paused = flag(F::paused);
    l.serviceable = flag(F::serviceable);
    l.served = u(F::served);
    l.oldest_enqueued_at_ms = i64(r, b + F::oldest_enqueued_at, "lanes");
    l.known = flag(F::known);
    l.delayed = u(F::delayed);
    l.rate_jobs = static_cast<uint32_t>(u(F::rate_jobs));
    l.rate_period_ms = i64(r, b + F::rate_period_ms, "lanes");
    l.rate_burst = static_cast<uint32_t>(u(F::rate_burst));
    l.rate_is_default = flag(F::rate_is_default);
    l.tokens = std::strtod(str(r, b + F::tokens, "lanes").c_str(), nullptr);
    l.next_token_at_ms = i64(r, b + F::next_token_at, "lanes");
    l.cap = u(F::cap);
    l.cap_is_default = flag(F::cap_is_default);
    l.tenant = str(r, b + F::tenant, "lanes");
    l.is_tenant = flag(F::is_tenant);
    l.wait_samples = u(F::wait_samples);
    l.wait_p50_ms = std::strtod(str(r, b + F::wait_p50_ms, "lanes").c_str(), nullptr);
    l.wait_p99_ms = std::strtod(str(r, b + F::wait_p99_ms, "lanes").c_str(), nullptr);
    l.window_claims = u(F::window_claims);
    l.share = std::strtod(str(r, b + F::share, "lanes").c_str(), nullptr);
    l.fair_share = std::strtod(str(r, b + F::fair_share, "lanes").c_str(), nullptr);
    const std::string v = str(r, b + F::cost_v, "lanes");
    l.cost_v = v.empty() ? -1 : std::strtod(v.c_str(), nullptr);
    l.sits_out = flag(F::sits_out);
    l.burst = static_cast<uint32_t>(u(F::burst));
    l.bursting = flag(F::bursting);
  }
  return out;
}
}  // namespace

LaneInfo Client::lane(const char* queue, const char* group) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  call<args::Lanes::One>(Script::Lanes, k).fixed(group);
  auto v = decodeLanes(run(Script::Lanes).get());
  if (v.size() != 1) echomq::fail(kProto, "lane: unexpected reply length");
  return v[0];
}

std::vector<LaneInfo> Client::lanes(const char* queue, const char* after, size_t count,
                                            bool& more) {
  const QueueKeys& k = keysFor(queue);
  if (after && *after) checkGroupName(after);
  checkRange("count", static_cast<long long>(count), 1, kPageMax);
  call<args::Lanes::Page>(Script::Lanes, k).fixed(after ? after : "", count);
  auto v = decodeLanes(run(Script::Lanes).get());
  more = v.size() == count;
  return v;
}

std::vector<Job> Client::dead(const char* queue, uint64_t offset, size_t count) {
  const QueueKeys& k = keysFor(queue);
  checkRange("count", static_cast<long long>(count), 1, kPageMax);
  if (offset > (1ULL << 53)) invalid("offset is too large");
  call<args::Dead>(Script::Dead, k).fixed(offset, count);
  ReplyPtr r = run(Script::Dead);
  scriptStatus(r.get(), "dead");
  using F = reply::Dead;
  uint64_t n = u64(r.get(), 1, "dead");
  if (r->elements != 2 + F::kFields * n) echomq::fail(kProto, "dead: unexpected reply length");
  std::vector<Job> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t b = 2 + F::kFields * i;
    Job& j = out[i];
    j.id = u64(r.get(), b + F::id, "dead");
    j.group = str(r.get(), b + F::group, "dead");
    j.payload = str(r.get(), b + F::payload, "dead");
    j.token = u64(r.get(), b + F::token, "dead");  // of its last delivery
    j.attempts = u64(r.get(), b + F::attempts, "dead");
    j.max_attempts = static_cast<uint32_t>(u64(r.get(), b + F::max_attempts, "dead"));
    j.enqueued_at_ms = i64(r.get(), b + F::enqueued_at, "dead");
    j.dead_at_ms = i64(r.get(), b + F::dead_at, "dead");
    j.last_error = str(r.get(), b + F::last_error, "dead");
    j.allowed = u64(r.get(), b + F::allowed, "dead");
    readMeta(str(r.get(), b + F::meta, "dead"), j);
    j.state = kJobDead;
  }
  return out;
}

uint64_t Client::redrive(const char* queue, const uint64_t* ids, size_t n) {
  const QueueKeys& k = keysFor(queue);
  checkRange("id count", static_cast<long long>(n), 1, kPageMax);
  if (!ids) invalid("ids is NULL");
  for (size_t i = 0; i < n; ++i)
    if (ids[i] == 0) invalid("job id must be >= 1");
  using L = args::Redrive::Ids;
  ArgWriter<L> w = call<L>(Script::Redrive, k);
  w.fixed();
  w.section<L::Jobs>(n);
  for (size_t i = 0; i < n; ++i) w.row<L::Jobs>(ids[i]);
  w.done();
  ReplyPtr r = run(Script::Redrive);
  scriptStatus(r.get(), "redrive");
  return u64(r.get(), 1 + reply::Redriven::moved, "redrive");
}

uint64_t Client::redriveAll(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  uint64_t total = 0;
  for (;;) {
    call<args::Redrive::All>(Script::Redrive, k).fixed(kRedriveChunk);
    ReplyPtr r = run(Script::Redrive);
    scriptStatus(r.get(), "redrive");
    uint64_t moved = u64(r.get(), 1 + reply::Redriven::moved, "redrive");
    total += moved;
    if (moved == 0 || u64(r.get(), 1 + reply::Redriven::dead_left, "redrive") == 0) return total;
  }
}

std::vector<std::string> Client::verify(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  call<args::Verify>(Script::Verify, k).fixed();
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
  checkRange("repair count", static_cast<long long>(count), 1, static_cast<long long>(kBatchMax));
  const Script s = apply ? Script::Repair : Script::RepairPlan;
  if (apply)
    call<args::Repair>(s, k).fixed(cursor, count);
  else
    call<args::Repairplan>(s, k).fixed(cursor, count);
  // A lane's pending set is read whole: allow a slow step.
  ReplyPtr r = run(s, std::max(opts_.timeouts.command_ms, 60000));
  scriptStatus(r.get(), "repair");
  std::string next = str(r.get(), 1, "repair");
  for (size_t i = 2; i < r->elements; ++i) lines.push_back(str(r.get(), i, "repair"));
  return next;
}

}  // namespace echomq
