// Schedules of a plain queue (lua/schedule.lua, lua/schedules.lua): the
// spec is checked and turned into the scripts' arguments here, before any
// I/O (the cron expression by cpp/cron.cpp, the zone by cpp/tz.cpp); the
// ticks are computed by the scripts only.
#include <chrono>
#include <cstring>

#include "args.hpp"
#include "client.hpp"
#include "cron.hpp"
#include "error.hpp"
#include "replies_gen.hpp"
#include "schedule_spec.hpp"
#include "script_reply.hpp"
#include "tz.hpp"
#include "validate.hpp"

namespace echomq {

void checkScheduleName(const char* name) {
  if (!name) invalid("schedule name is NULL");
  size_t n = std::strlen(name);
  if (n < 1 || n > kScheduleNameMax)
    invalid("schedule name must be 1.." + std::to_string(kScheduleNameMax) + " bytes");
  for (size_t i = 0; i < n; ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '.' || c == ':' || c == '-';
    if (!ok) invalid(std::string("schedule name '") + name + "' holds a byte outside [A-Za-z0-9_.:-]");
  }
}

void checkScheduleSpec(const ScheduleSpec& s, size_t max_payload) {
  if ((s.every_ms != 0) == !s.cron.empty()) invalid("a schedule needs exactly one of every_ms and cron");
  if (s.every_ms != 0) checkRange("every_ms", s.every_ms, 1, kScheduleEveryMaxMs);
  checkLaneBytes(s.lane.data(), s.lane.size());
  if (s.payload.size() > max_payload)
    fail(kTooLarge, "payload of " + std::to_string(s.payload.size()) + " bytes is over the limit of " +
                        std::to_string(max_payload));
  checkRange("max_attempts", s.max_attempts, 0, kAttemptsMax);
  checkKeep(s.keep_ms, s.keep_last);
  checkEstimate(s.cost_estimate);
  checkRange("start_at_ms", s.start_at_ms, 0, kIdMax);
  checkRange("end_at_ms", s.end_at_ms, 0, kIdMax);
  if (s.end_at_ms > 0 && s.end_at_ms <= s.start_at_ms) invalid("end_at_ms is not after start_at_ms");
  if (s.limit > static_cast<uint64_t>(kIdMax)) invalid("limit out of range");
  checkRange("missed", s.missed, kMissedFireOnce, kMissedSkip);
  checkRange("grace_ms", s.grace_ms, 0, kDelayMaxMs);
  checkRange("overlap", s.overlap, kOverlapFire, kOverlapSkip);
}

int Client::upsertSchedule(const char* queue, const char* name, const ScheduleSpec& spec, int64_t& next_at_ms) {
  const QueueKeys& k = keysFor(queue);
  checkScheduleName(name);
  checkScheduleSpec(spec, opts_.max_payload);
  // The parts the script reads: the cron expression canonical, the zone's
  // rules (a named zone's for the years around now: cpp/tz.cpp).
  std::string cronx, zone, rules;
  if (!spec.cron.empty()) {
    cronx = canonicalCron(spec.cron);
    zone = spec.zone.empty() ? "UTC" : spec.zone;
    int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count();
    rules = zoneRules(zone, now);
  } else if (!spec.zone.empty()) {
    invalid("a zone goes with a cron schedule only");
  }
  // (Values the writer references stay alive until the call is run.)
  call<args::Schedule::Upsert>(Script::Schedule, k)
      .fixed(name, spec.every_ms ? "every" : "cron", spec.every_ms, spec.cron, cronx, zone, rules, spec.lane,
             spec.payload, spec.max_attempts, spec.keep_ms, spec.keep_last, spec.cost_estimate, spec.start_at_ms,
             spec.end_at_ms, spec.limit, spec.missed, spec.grace_ms > 0 ? spec.grace_ms : kScheduleGraceDefaultMs,
             spec.overlap);
  ReplyPtr r = run(Script::Schedule);
  scriptStatus(r.get(), "schedule");
  if (r->elements != 3) echomq::fail(kProto, "schedule: unexpected reply length");
  int64_t next = i64(r.get(), 2, "schedule next");
  next_at_ms = next > 0 ? next : 0;
  return static_cast<int>(i64(r.get(), 1, "schedule changed"));
}

void Client::removeSchedule(const char* queue, const char* name) {
  const QueueKeys& k = keysFor(queue);
  checkScheduleName(name);
  call<args::Schedule::Remove>(Script::Schedule, k).fixed(name);
  scriptStatus(run(Script::Schedule).get(), "schedule");
}

void Client::pauseSchedule(const char* queue, const char* name, bool paused) {
  const QueueKeys& k = keysFor(queue);
  checkScheduleName(name);
  if (paused)
    call<args::Schedule::Pause>(Script::Schedule, k).fixed(name);
  else
    call<args::Schedule::Resume>(Script::Schedule, k).fixed(name);
  scriptStatus(run(Script::Schedule).get(), "schedule");
}

std::vector<ScheduleInfo> Client::readSchedules(const char* queue, const char* after, const char* name,
                                                size_t count) {
  const QueueKeys& k = keysFor(queue);
  if (name)
    call<args::Schedules::One>(Script::Schedules, k).fixed(name);
  else
    call<args::Schedules::Page>(Script::Schedules, k).fixed(after, count);
  ReplyPtr r = run(Script::Schedules);
  scriptStatus(r.get(), "schedules");
  using F = reply::Schedule;
  const redisReply* a = r.get();
  uint64_t n = u64(a, 1, "schedules");
  if (a->elements != 2 + F::kFields * n) echomq::fail(kProto, "schedules: unexpected reply length");
  std::vector<ScheduleInfo> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    size_t b = 2 + F::kFields * i;
    auto I = [&](size_t f) { return i64(a, b + f, "schedules"); };
    auto U = [&](size_t f) { return u64(a, b + f, "schedules"); };
    auto T = [&](size_t f) { return str(a, b + f, "schedules"); };
    ScheduleInfo& s = out[i];
    s.name = T(F::name);
    s.spec.every_ms = I(F::every);
    s.spec.cron = T(F::cron);
    s.spec.zone = T(F::zone);
    s.spec.lane = T(F::lane);
    s.spec.payload = T(F::payload);
    s.spec.max_attempts = static_cast<uint32_t>(U(F::max_attempts));
    s.spec.keep_ms = I(F::keep_ms);
    s.spec.keep_last = U(F::keep_last);
    s.spec.cost_estimate = U(F::cost_estimate);
    s.spec.start_at_ms = I(F::start_at);
    s.spec.end_at_ms = I(F::end_at);
    s.spec.limit = U(F::limit);
    s.spec.missed = static_cast<int>(I(F::missed));
    s.spec.grace_ms = I(F::grace_ms);
    s.spec.overlap = static_cast<int>(I(F::overlap));
    s.paused = I(F::paused) != 0;
    s.ended = T(F::ended);
    s.next_at_ms = I(F::next_at);
    s.last_tick_ms = I(F::last_tick);
    s.fired_tick_ms = I(F::fired_tick);
    s.fired_at_ms = I(F::fired_at);
    s.fired_job = U(F::fired_job);
    s.fired_state = static_cast<int>(I(F::fired_state));
    s.runs = U(F::runs);
    s.skips = U(F::skips);
    s.created_at_ms = I(F::created_at);
    s.updated_at_ms = I(F::updated_at);
  }
  return out;
}

std::vector<ScheduleInfo> Client::schedules(const char* queue, const char* after, size_t count, bool& more) {
  if (after && *after) checkScheduleName(after);
  checkRange("count", static_cast<long long>(count), 1, static_cast<long long>(kScheduleListMax));
  auto v = readSchedules(queue, after ? after : "", nullptr, count);
  more = v.size() == count;
  return v;
}

ScheduleInfo Client::schedule(const char* queue, const char* name) {
  checkScheduleName(name);
  auto v = readSchedules(queue, nullptr, name, 0);
  if (v.size() != 1) echomq::fail(kProto, "schedules: unexpected reply length");
  return v[0];
}

std::vector<int64_t> Client::nextTicks(const char* queue, const char* name, size_t n) {
  const QueueKeys& k = keysFor(queue);
  checkScheduleName(name);
  checkRange("n", static_cast<long long>(n), 1, static_cast<long long>(kScheduleNextMax));
  call<args::Schedules::Next>(Script::Schedules, k).fixed(name, n);
  ReplyPtr r = run(Script::Schedules);
  scriptStatus(r.get(), "schedules");
  uint64_t m = u64(r.get(), 1, "schedules");
  if (r->elements != 2 + m || m > n) echomq::fail(kProto, "schedules: unexpected reply length");
  std::vector<int64_t> out(m);
  for (uint64_t i = 0; i < m; ++i) out[i] = i64(r.get(), 2 + i, "schedules next");
  return out;
}

}  // namespace echomq
