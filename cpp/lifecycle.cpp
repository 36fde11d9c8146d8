// A job's life past claim and settle (lua/cancel.lua, lua/lifeconf.lua;
// docs/architecture.md "Lifecycle"): cancel, time limits, start deadlines,
// the queue-wide ceiling and rate, bursting lane limits. The logic is the
// scripts'; here the calls are validated and written.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "args.hpp"
#include "client.hpp"
#include "error.hpp"
#include "replies_gen.hpp"
#include "script_reply.hpp"
#include "validate.hpp"

namespace echomq {

int Client::cancelJob(const char* queue, uint64_t id, const std::string& reason, bool removeWaiting) {
  const QueueKeys& k = keysFor(queue);
  if (id == 0 || id > static_cast<uint64_t>(kIdMax)) invalid("job id out of range");
  const std::string why = reason.substr(0, std::min(reason.size(), kReasonMax));
  call<args::Cancel>(Script::Cancel, k).fixed(id, why, removeWaiting ? "r" : "");
  ReplyPtr r = run(Script::Cancel);
  scriptStatus(r.get(), "cancel");
  if (r->elements != 2) echomq::fail(kProto, "cancel: unexpected reply length");
  return static_cast<int>(i64(r.get(), 1, "cancel"));
}

}  // namespace echomq

namespace echomq {

std::vector<std::pair<std::string, uint64_t>> Client::readNotices(const char* queue, const std::string& after,
                                                                  int64_t block_ms) {
  const QueueKeys& k = keysFor(queue);
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& e : readStream(k.key("notice"), after, 1000, block_ms)) {
    // [stream id, "id", job id]
    if (e.size() < 3 || e[1] != "id") echomq::fail(kProto, "cancel notice: unexpected entry");
    out.emplace_back(e[0], std::strtoull(e[2].c_str(), nullptr, 10));
  }
  return out;
}

}  // namespace echomq

namespace echomq {

void checkLimits(const JobLimits& l) {
  checkRange("timeout_ms", l.timeout_ms, 0, kTimeoutMaxMs);
  checkRange("expires_at_ms", l.expires_at_ms, 0, kIdMax);
  checkRange("ttl_ms", l.ttl_ms, 0, kTtlMaxMs);
  if (l.expires_at_ms > 0 && l.ttl_ms > 0) invalid("give expires_at_ms or ttl_ms, not both");
  if (l.expire_drop && l.expires_at_ms == 0 && l.ttl_ms == 0) invalid("expire_drop without a start deadline");
}

void Client::setDefaultTimeout(const char* queue, int64_t timeout_ms) {
  const QueueKeys& k = keysFor(queue);
  checkRange("default timeout_ms", timeout_ms, 0, kTimeoutMaxMs);
  call<args::Lifeconf::Timeout>(Script::LifeConf, k).fixed(timeout_ms);
  scriptStatus(run(Script::LifeConf).get(), "default timeout");
}

void Client::setQueueLimit(const char* queue, uint32_t limit) {
  const QueueKeys& k = keysFor(queue);
  checkRange("queue limit", limit, 0, kLimitMax);
  call<args::Lifeconf::Qlimit>(Script::LifeConf, k).fixed(limit);
  scriptStatus(run(Script::LifeConf).get(), "queue limit");
}

void Client::setQueueRate(const char* queue, uint32_t jobs, int64_t period_ms, uint32_t burst) {
  const QueueKeys& k = keysFor(queue);
  checkRange("queue rate jobs", jobs, 0, kRateJobsMax);
  checkRange("queue rate period_ms", period_ms, 1, kRatePeriodMaxMs);
  checkRange("queue rate burst", burst, 0, kRateJobsMax);
  call<args::Lifeconf::Qrate>(Script::LifeConf, k).fixed(jobs, period_ms, burst);
  scriptStatus(run(Script::LifeConf).get(), "queue rate");
}

LifeSettings Client::lifeSettings(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  call<args::Lifeconf::Get>(Script::LifeConf, k).fixed();
  ReplyPtr r = run(Script::LifeConf);
  scriptStatus(r.get(), "lifecycle settings");
  using F = reply::Lifeconf;
  const redisReply* a = r.get();
  if (a->elements != 1 + F::kFields) echomq::fail(kProto, "lifecycle settings: unexpected reply length");
  auto n = [&](size_t f) { return i64(a, 1 + f, "lifecycle settings"); };
  LifeSettings s;
  s.default_timeout_ms = n(F::default_timeout_ms);
  s.queue_limit = static_cast<uint32_t>(n(F::queue_limit));
  s.rate_jobs = static_cast<uint32_t>(n(F::rate_jobs));
  s.rate_period_ms = n(F::rate_period_ms);
  s.rate_burst = static_cast<uint32_t>(n(F::rate_burst));
  s.leased = static_cast<uint64_t>(n(F::leased));
  s.tokens = std::strtod(str(a, 1 + F::tokens, "lifecycle settings").c_str(), nullptr);
  s.next_token_at_ms = n(F::next_token_at);
  return s;
}

}  // namespace echomq

namespace echomq {

void Client::setLimitBurst(const char* queue, const char* group, uint32_t limit, uint32_t burst) {
  const QueueKeys& k = keysFor(queue);
  checkGroupName(group);
  checkRange("limit", limit, 1, kLimitMax);
  checkRange("burst", burst, 0, kLimitMax);
  if (burst > 0 && burst < limit)
    invalid("burst " + std::to_string(burst) + " is below the limit " + std::to_string(limit));
  call<args::Burst>(Script::Burst, k).fixed(group, limit, burst);
  scriptStatus(run(Script::Burst).get(), "burst");
}

}  // namespace echomq
