// Everyday operations: enqueue with idempotency keys, a job by id, delete,
// purge, and the list of queues. The queue logic is in the scripts
// (lua/job.lua, delete.lua, purge.lua, includes/dedup.lua).
#include <algorithm>
#include <cstring>

#include "args.hpp"
#include "client.hpp"
#include "error.hpp"
#include "job_meta.hpp"
#include "replies_gen.hpp"
#include "script_reply.hpp"
#include "validate.hpp"

namespace echomq {

EnqueueResult Client::enqueueKeyed(const char* queue, const std::vector<NewJob>& jobs,
                                   int64_t delay_ms, uint32_t max_attempts, int64_t window_ms,
                                   int64_t keep_ms, uint64_t keep_last, uint64_t estimate, int64_t at_ms,
                                   const JobLimits& limits) {
  if (window_ms == 0) window_ms = kDedupWindowDefaultMs;
  checkRange("dedup_window_ms", window_ms, 1, kDedupWindowMaxMs);
  ReplyPtr r = runEnqueue(queue, jobs, delay_ms, max_attempts, window_ms, keep_ms, keep_last, estimate, at_ms, limits);
  scriptStatus(r.get(), "enqueue");
  size_t n = jobs.size();
  const size_t at = 1 + reply::Enqueued::kFields;  // after the status and the head
  if (r->elements != at + 2 * n) echomq::fail(kProto, "enqueue: unexpected reply length");
  EnqueueResult out;
  out.ids.resize(n);
  out.duplicate.resize(n);
  for (size_t i = 0; i < n; ++i) {
    out.ids[i] = u64(r.get(), at + i, "enqueue id");
    out.duplicate[i] = i64(r.get(), at + n + i, "enqueue duplicate") != 0;
  }
  return out;
}

Job Client::getJob(const char* queue, uint64_t id) {
  const QueueKeys& k = keysFor(queue);
  if (id == 0 || id > static_cast<uint64_t>(kIdMax)) invalid("job id out of range");
  call<args::Job>(Script::Job, k).fixed(id);
  ReplyPtr r = run(Script::Job);
  scriptStatus(r.get(), "job");
  using F = reply::Info;
  if (r->elements != 1 + F::kFields) echomq::fail(kProto, "job: unexpected reply length");
  const redisReply* a = r.get();
  auto at = [](size_t f) { return 1 + f; };  // the row follows the status
  Job j;
  j.id = u64(a, at(F::id), "job");
  j.state = static_cast<int>(i64(a, at(F::state), "job state"));
  j.group = str(a, at(F::group), "job group");
  j.payload = str(a, at(F::payload), "job payload");
  j.attempts = u64(a, at(F::attempts), "job attempts");
  j.token = u64(a, at(F::token), "job token");
  j.max_attempts = static_cast<uint32_t>(u64(a, at(F::max_attempts), "job max attempts"));
  j.allowed = u64(a, at(F::allowed), "job attempts allowed");
  j.enqueued_at_ms = i64(a, at(F::enqueued_at), "job enqueued");
  int64_t when = i64(a, at(F::when), "job time");
  if (j.state == kJobLeased) j.lease_until_ms = when;
  if (j.state == kJobDelayed) j.due_at_ms = when;
  if (j.state == kJobDead) j.dead_at_ms = when;
  j.last_error = str(a, at(F::last_error), "job last error");
  j.started_at_ms = i64(a, at(F::started_at), "job started");
  j.finished_at_ms = i64(a, at(F::finished_at), "job finished");
  j.progress = str(a, at(F::progress), "job progress");
  j.result = str(a, at(F::result), "job result");
  j.schedule = str(a, at(F::schedule), "job schedule");
  j.tick_ms = i64(a, at(F::tick), "job tick");
  j.result_dropped = str(a, at(F::result_dropped), "job result dropped");
  readMeta(str(a, at(F::meta), "job meta"), j);
  return j;
}

void Client::deleteJob(const char* queue, uint64_t id) {
  const QueueKeys& k = keysFor(queue);
  if (id == 0 || id > static_cast<uint64_t>(kIdMax)) invalid("job id out of range");
  call<args::Delete>(Script::Delete, k).fixed(id);
  scriptStatus(run(Script::Delete).get(), "delete");
}

uint64_t Client::purgeLane(const char* queue, const char* group, uint32_t max, bool clear_settings,
                           uint64_t& cursor, bool& more) {
  const QueueKeys& k = keysFor(queue);
  checkLaneName(group);
  checkRange("max", max, 1, kPurgeMax);
  if (cursor > static_cast<uint64_t>(kIdMax)) invalid("cursor out of range");
  call<args::Purge>(Script::Purge, k).fixed(group, max, cursor, clear_settings ? "1" : "0");
  ReplyPtr r = run(Script::Purge);
  scriptStatus(r.get(), "purge");
  using F = reply::Purged;
  uint64_t removed = u64(r.get(), 1 + F::removed, "purge");
  more = i64(r.get(), 1 + F::more, "purge") != 0;
  cursor = u64(r.get(), 1 + F::cursor, "purge");
  return removed;
}

std::string Client::staleReason(const char* queue, const Settlement& s) {
  std::string job = "job " + std::to_string(s.id);
  std::string tok = "token " + std::to_string(s.token);
  Job j;
  try {
    j = getJob(queue, s.id);  // read-only, off the hot path: only after a refusal
  } catch (const Error&) {  // gone: acked (a second ack), or deleted
    return job + " is no longer leased with " + tok + ": it was settled already, or deleted";
  }
  if (j.state == kJobLeased && j.token != s.token)
    return tok + " is stale: " + job + " was delivered again (current token " + std::to_string(j.token) +
           "), so this holder's lease was lost";
  const char* where = j.state == kJobPending   ? "back in its lane (its lease expired)"
                      : j.state == kJobDelayed ? "waiting for a retry (it was failed)"
                      : j.state == kJobDead    ? "dead-lettered"
                      : j.state == kJobCompleted ? "completed"
                                                      : "leased";
  return job + " is no longer leased with " + tok + ": it is " + where;
}

std::vector<std::string> Client::queues() {
  // SCAN walks the keyspace in bounded steps; a queue has a config key from
  // its first enqueue. Names hold no brace or colon, so the key parses back.
  std::vector<std::string> out;
  std::string cursor = "0";
  do {
    Argv a;
    a.ref("SCAN", 4);
    a.ref(cursor);
    a.ref("MATCH", 5);
    a.ref("emq:{*}:config", 14);
    a.ref("COUNT", 5);
    a.ref("1000", 4);
    ReplyPtr r = conn_.command(a);
    if (r->type == REDIS_REPLY_ERROR) throwReplyError(r.get(), "SCAN");
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[1]->type != REDIS_REPLY_ARRAY)
      echomq::fail(kProto, "SCAN: unexpected reply shape");
    cursor = replyStr(r->element[0], "SCAN cursor");
    const redisReply* keys = r->element[1];
    for (size_t i = 0; i < keys->elements; ++i) {
      std::string key = replyStr(keys->element[i], "SCAN key");
      if (key.size() < 13) continue;
      std::string name = key.substr(5, key.size() - 13);  // emq:{ name }:config
      try {
        checkQueueName(name.c_str());
        out.push_back(name);
      } catch (const Error&) {
        // not a queue's key: a name EchoMQ would refuse
      }
    }
  } while (cursor != "0");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace echomq
