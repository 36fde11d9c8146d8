// scriptfloor.cpp — the script floor (part of `--only floor`): the least a
// job's life can cost the server in Lua, against EchoMQ's, at the same
// batch sizes and in the same rounds. Both sides enqueue kJobs jobs over 100
// lanes in calls of B jobs, then drain them in calls that settle the last
// call's B jobs and claim the next B (as the engine does). The minimal
// scripts keep a job record, a pending set per lane, a ring of the lanes
// with work, and a lease set; nothing else (no token, counters, flags,
// settings, recovery, or checks). Server time is the scripts' own: INFO
// commandstats µs of the script calls (Admin::script_usec), per job.
#include "common.hpp"
#include "sections.hpp"
#include "server.hpp"

#include <hiredis/hiredis.h>

#include <string>
#include <vector>

namespace bench {
namespace {

constexpr uint64_t kLanes = 100;
constexpr int64_t kLease = 60000;
constexpr const char *kPayload = "0123456789abcdef";

// KEYS: seq, jobs, ring; ARGV: prefix, then lane, payload pairs. Each lane
// of the call is touched once: its jobs added in one ZADD, and the lane
// joins the ring when they were its first.
constexpr const char *kEnqueue = R"(
local n = (#ARGV - 1) / 2
local id = redis.call('INCRBY', KEYS[1], n) - n
local lanes, order = {}, {}
for i = 2, #ARGV, 2 do
  id = id + 1
  local lane = ARGV[i]
  redis.call('HSET', KEYS[2], id, lane .. '|' .. ARGV[i + 1])
  local l = lanes[lane]
  if not l then l = {}; lanes[lane] = l; order[#order + 1] = lane end
  l[#l + 1] = id; l[#l + 1] = id
end
for _, lane in ipairs(order) do
  local pk = ARGV[1] .. 'p:' .. lane
  local l = lanes[lane]
  redis.call('ZADD', pk, unpack(l))
  if redis.call('ZCARD', pk) == #l / 2 then redis.call('RPUSH', KEYS[3], lane) end
end
return id
)";

// KEYS: ring, leases, jobs; ARGV: prefix, lease deadline, n, then the ids
// to settle (acks). The acks go first (lease and record removed), then n
// turns: the ring's head lane gives its oldest job and goes to the back
// while it has more; the leases and the records are read in one call each.
constexpr const char *kTake = R"(
if #ARGV > 3 then
  local ids = { unpack(ARGV, 4) }
  redis.call('ZREM', KEYS[2], unpack(ids))
  redis.call('HDEL', KEYS[3], unpack(ids))
end
local lease, ids = {}, {}
for _ = 1, tonumber(ARGV[3]) do
  local lane = redis.call('LPOP', KEYS[1])
  if not lane then break end
  local pk = ARGV[1] .. 'p:' .. lane
  local id = redis.call('ZPOPMIN', pk)[1]
  if redis.call('ZCARD', pk) > 0 then redis.call('RPUSH', KEYS[1], lane) end
  ids[#ids + 1] = id
  lease[#lease + 1] = ARGV[2]; lease[#lease + 1] = id
end
if #ids == 0 then return {} end
redis.call('ZADD', KEYS[2], unpack(lease))
local recs = redis.call('HMGET', KEYS[3], unpack(ids))
local out = {}
for k = 1, #ids do out[k + k - 1] = ids[k]; out[k + k] = recs[k] end
return out
)";

std::string load(redisContext *c, const char *script) {
  auto *r = static_cast<redisReply *>(redisCommand(c, "SCRIPT LOAD %s", script));
  std::string sha = r && r->type == REDIS_REPLY_STRING ? std::string(r->str, r->len) : "";
  if (r) freeReplyObject(r);
  return sha;
}

// One EVALSHA; the reply, or nullptr after an error (logged).
redisReply *eval(redisContext *c, const std::vector<std::string> &args) {
  std::vector<const char *> argv;
  std::vector<size_t> lens;
  for (const auto &a : args) {
    argv.push_back(a.c_str());
    lens.push_back(a.size());
  }
  auto *r = static_cast<redisReply *>(redisCommandArgv(c, int(args.size()), argv.data(), lens.data()));
  if (!r || r->type == REDIS_REPLY_ERROR) {
    errors().add(std::string("script floor: ") + (r ? r->str : "no reply"));
    if (r) freeReplyObject(r);
    return nullptr;
  }
  return r;
}

// The minimal scripts' µs of server time per job, enqueue and drain.
double minimal_run(Context &ctx, uint64_t jobs, uint64_t batch) {
  ctx.fresh();
  redisContext *c = ctx.admin->ctx();
  const std::string enq = load(c, kEnqueue), take = load(c, kTake);
  if (enq.empty() || take.empty()) {
    errors().add("script floor: SCRIPT LOAD failed");
    return 0;
  }
  const std::string pre = "min:{q}:", seq = pre + "seq", jobs_key = pre + "jobs", ring = pre + "ring",
                    leases = pre + "leases";
  ctx.admin->reset_stats();
  for (uint64_t k = 0; k < jobs; k += batch) {
    std::vector<std::string> args{"EVALSHA", enq, "3", seq, jobs_key, ring, pre};
    for (uint64_t i = k; i < jobs && i < k + batch; ++i) {
      args.push_back(lane_name(i % kLanes));
      args.push_back(kPayload);
    }
    redisReply *r = eval(c, args);
    if (!r) return 0;
    freeReplyObject(r);
  }
  // The deadline is the client's: the floor reads no clock.
  const std::string deadline = std::to_string(kLease), n = std::to_string(batch);
  std::vector<std::string> held;
  uint64_t done = 0;
  for (;;) {
    std::vector<std::string> args{"EVALSHA", take, "3", ring, leases, jobs_key, pre, deadline, n};
    args.insert(args.end(), held.begin(), held.end());
    done += held.size();
    redisReply *r = eval(c, args);
    if (!r) return 0;
    held.clear();
    for (size_t i = 0; i + 1 < r->elements; i += 2) held.emplace_back(r->element[i]->str, r->element[i]->len);
    freeReplyObject(r);
    if (held.empty()) break;
  }
  if (done != jobs) errors().add("script floor: minimal drain settled " + std::to_string(done));
  return ctx.admin->script_usec() / double(jobs);
}

// EchoMQ's µs of server time per job, the same work through the C API.
double echomq_run(Context &ctx, echomq_client *c, uint64_t jobs, uint64_t batch) {
  ctx.fresh();
  const std::string &q = ctx.queue;
  ctx.admin->reset_stats();
  Batch b(echomq_batch_create());
  for (uint64_t k = 0; k < jobs; k += batch) {
    echomq_batch_clear(b.get());
    for (uint64_t i = k; i < jobs && i < k + batch; ++i)
      echomq_batch_add(b.get(), lane_name(i % kLanes).c_str(), kPayload, 16);
    if (!ok(echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr), c, "script floor: enqueue_batch")) return 0;
  }
  echomq::SettlePtr s(echomq_settle_create());
  uint64_t done = 0;
  for (;;) {
    echomq_job_list *raw = nullptr;
    int st = echomq_settle_claim(c, q.c_str(), s.get(), kLease, uint32_t(batch), 0, &raw);
    done += echomq_settle_count(s.get());
    echomq_settle_clear(s.get());
    JobList l(raw);
    if (st == ECHOMQ_EMPTY) break;
    if (!ok(st, c, "script floor: settle_claim")) return 0;
    for (size_t i = 0; i < echomq_job_list_count(l.get()); ++i) {
      const echomq_job *j = echomq_job_list_at(l.get(), i);
      echomq_settle_ack(s.get(), echomq_job_id(j), echomq_job_token(j));
    }
  }
  if (done != jobs) errors().add("script floor: EchoMQ drain settled " + std::to_string(done));
  return ctx.admin->script_usec() / double(jobs);
}

}  // namespace

void run_script_floor(Context &ctx) {
  Client c(ctx.url);
  if (!c.get()) return;
  const uint64_t jobs = ctx.sz.ops8;
  for (uint64_t batch : {uint64_t(1), uint64_t(32)}) {
    const std::string b = ", batch " + std::to_string(batch);
    ctx.rounds(1, "us server/job",
               {{"floor", "minimal enqueue + claim/ack scripts" + b,
                 [&, batch](int) { return minimal_run(ctx, jobs, batch); }},
                {"floor", "EchoMQ enqueue_batch + settle_claim" + b,
                 [&, batch](int) { return echomq_run(ctx, c.get(), jobs, batch); }}},
               0, "minimal scripts");
  }
}

}  // namespace bench
