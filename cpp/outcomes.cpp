// Outcomes: retention, waiting for a job, progress and the event stream.
// The queue logic is in the scripts (lua/outconf.lua, wait.lua,
// progress.lua, includes/finishAcks.lua); docs/keys.md "Outcomes".

#include "args.hpp"
#include "client.hpp"
#include "error.hpp"
#include "script_reply.hpp"
#include "validate.hpp"

namespace echomq {

void checkKeep(int64_t keep_ms, uint64_t keep_last) {
  checkRange("keep_ms", keep_ms, 0, kKeepMaxMs);
  if (keep_last > kKeepLastMax) invalid("keep_last is over " + std::to_string(kKeepLastMax));
}

void Client::setRetention(const char* queue, int64_t keep_ms, uint64_t keep_last) {
  const QueueKeys& k = keysFor(queue);
  checkKeep(keep_ms, keep_last);
  if (keep_ms == 0 && keep_last == 0)
    invalid("retention needs keep_ms or keep_last (clear it to turn it off)");
  call<args::Outconf::Retain>(Script::OutConf, k).fixed(keep_ms, keep_last);
  scriptStatus(run(Script::OutConf).get(), "retention");
}

void Client::clearRetention(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  call<args::Outconf::Noretain>(Script::OutConf, k).fixed();
  scriptStatus(run(Script::OutConf).get(), "retention");
}

void Client::setEvents(const char* queue, uint64_t maxlen, bool enqueued) {
  const QueueKeys& k = keysFor(queue);
  if (maxlen < 1 || maxlen > kEventsMaxlenMax)
    invalid("events max length must be 1.." + std::to_string(kEventsMaxlenMax));
  call<args::Outconf::Events>(Script::OutConf, k).fixed(maxlen, enqueued ? "1" : "0");
  scriptStatus(run(Script::OutConf).get(), "events");
}

void Client::clearEvents(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  call<args::Outconf::Noevents>(Script::OutConf, k).fixed();
  scriptStatus(run(Script::OutConf).get(), "events");
}

OutcomeSettings Client::outcomeSettings(const char* queue) {
  const QueueKeys& k = keysFor(queue);
  call<args::Outconf::Get>(Script::OutConf, k).fixed();
  ReplyPtr r = run(Script::OutConf);
  scriptStatus(r.get(), "outcome settings");
  if (r->elements != 5) echomq::fail(kProto, "outcome settings: unexpected reply length");
  OutcomeSettings o;
  o.keep_ms = i64(r.get(), 1, "outcome settings");
  o.keep_last = u64(r.get(), 2, "outcome settings");
  o.events_max_len = u64(r.get(), 3, "outcome settings");
  o.events_enqueued = u64(r.get(), 4, "outcome settings") != 0;
  return o;
}

void Client::progress(const char* queue, uint64_t id, uint64_t token, const char* value, size_t len) {
  const QueueKeys& k = keysFor(queue);
  if (id == 0 || id > static_cast<uint64_t>(kIdMax)) invalid("job id out of range");
  if (token == 0 || token > static_cast<uint64_t>(kIdMax)) invalid("token out of range");
  if (len > 0 && !value) invalid("progress is NULL with a non-zero length");
  if (len > kProgressMax)
    echomq::fail(kTooLarge, "progress of " + std::to_string(len) + " bytes is over the limit of " +
                                std::to_string(kProgressMax));
  using L = args::Progress;
  call<L>(Script::Progress, k).fixed(id, token, ArgWriter<L>::bytes(value, len));
  scriptStatus(run(Script::Progress).get(), "progress");
}

bool Client::waitJob(const char* queue, uint64_t id, int64_t timeout_ms, Job& out) {
  const QueueKeys& k = keysFor(queue);
  if (id == 0 || id > static_cast<uint64_t>(kIdMax)) invalid("job id out of range");
  checkRange("timeout_ms", timeout_ms, 0, kWaitMaxMs);
  Connection::CancellableScope guard(conn_);
  const std::string ids = std::to_string(id);
  call<args::Wait::WaitMode>(Script::Wait, k).fixed(ids);
  if (scriptStatus(run(Script::Wait).get(), "wait") == kOk) {
    out = getJob(queue, id);  // finished already
    return true;
  }
  bool woke = false;
  if (timeout_ms > 0) {
    // Registered: the job's ack or death pushes onto its wake-up list
    // (lua/includes/wakeWaiters.lua). No polling: one BLPOP.
    woke = blockPop(k.prefix + "w:" + ids, timeout_ms);
  }
  if (woke) {
    out = getJob(queue, id);  // retained at least ECHOMQ_WAIT_GRACE_MS; gone = deleted
    return true;
  }
  // Gave up: no element for this waiter any more.
  call<args::Wait::Unwait>(Script::Wait, k).fixed(ids);
  scriptStatus(run(Script::Wait).get(), "wait");
  return false;
}

std::vector<std::vector<std::string>> Client::readEvents(const char* queue, const std::string& after,
                                                         size_t count, int64_t block_ms) {
  const QueueKeys& k = keysFor(queue);
  return readStream(k.key("events"), after, count, block_ms);
}

std::vector<std::vector<std::string>> Client::readStream(const std::string& key, const std::string& after,
                                                         size_t count, int64_t block_ms) {
  if (count < 1 || count > kBatchMax) invalid("count must be 1.." + std::to_string(kBatchMax));
  checkRange("block_ms", block_ms, 0, kWaitMaxMs);
  if (after.empty() || after.size() > 64) invalid("bad stream id");
  for (char ch : after)
    if (!((ch >= '0' && ch <= '9') || ch == '-' || ch == '$')) invalid("bad stream id: " + after);
  Argv a;
  a.ref("XREAD", 5);
  a.ref("COUNT", 5);
  a.own(static_cast<long long>(count));
  if (block_ms > 0) {
    a.ref("BLOCK", 5);
    a.own(block_ms);
  }
  a.ref("STREAMS", 7);
  a.ref(key);
  a.ref(after);
  ReplyPtr r;
  if (block_ms > 0) {
    Connection::CancellableScope guard(conn_);
    r = conn_.interruptibleWait(a, static_cast<int>(block_ms) + opts_.timeouts.command_ms);
  } else {
    r = conn_.command(a);
  }
  if (r->type == REDIS_REPLY_ERROR) throwReplyError(r.get(), "XREAD");
  std::vector<std::vector<std::string>> out;
  if (r->type == REDIS_REPLY_NIL) return out;  // nothing in time
  // [[key, [[id, [f, v, ...]], ...]]]
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 1) echomq::fail(kProto, "XREAD: unexpected reply");
  const redisReply* s = r->element[0];
  if (s->type != REDIS_REPLY_ARRAY || s->elements != 2 || s->element[1]->type != REDIS_REPLY_ARRAY)
    echomq::fail(kProto, "XREAD: unexpected reply");
  const redisReply* entries = s->element[1];
  for (size_t i = 0; i < entries->elements; ++i) {
    const redisReply* e = entries->element[i];
    if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[1]->type != REDIS_REPLY_ARRAY)
      echomq::fail(kProto, "XREAD: unexpected entry");
    std::vector<std::string> row{replyStr(e->element[0], "XREAD id")};
    const redisReply* f = e->element[1];
    for (size_t j = 0; j < f->elements; ++j) row.push_back(replyStr(f->element[j], "XREAD field"));
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace echomq
