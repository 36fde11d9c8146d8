#!lua flags=no-writes
--[[ job: one job by id, wherever it is (read-only).
-- KEYS: seq leases delayed dead stats config jobs att fin started progress
-- ARGV (lua/args.txt, `job`): id
-- Returns {OK, then an `info` row of INFO_FIELDS values (lua/replies.txt)}:
-- token = the fencing token of its current or last delivery (0 before the
-- first; lua/includes/record.lua, deliveryToken), the one a settlement must
-- carry: not the attempts so far, which `attempts` gives;
-- state JOB_PENDING, JOB_WAITING (a flow's parent waiting for its children:
-- when "0"), JOB_LEASED (when = lease deadline), JOB_DELAYED (when =
-- due time), JOB_DEAD (when = time of death) or JOB_COMPLETED (a retained
-- outcome: when = time it was acked, payload not kept), when "0" for a
-- pending job; started_at = first delivery ("0" before it or when not
-- recorded), finished_at = when it completed or died; {ENOTFOUND, msg} for
-- no such job (never enqueued, deleted, or acked and not retained).
]]
--@include args
--@include lookup
--@include place
--@include outcomeOf
--@include okey

-- The schedule and tick that made job id (lua/includes/sched.lua), or '', '0'.
local function tickOf(id)
  local t, name = string.match(rcall('HGET', okey('sjob'), id) or '', '^(%d+) (.*)$')
  return name or '', t or '0'
end

local A, bad = readArgs()
if not A then return bad end
local id, rec = jobById('job', A.id)
local out = { OK }  -- then an `info` row (lua/replies.txt: INFO_FIELDS values)
if not id then
  if rec[1] ~= ENOTFOUND then return rec end
  local o = outcomeOf(A.id, serverNowMs())
  if not o then return rec end
  out[1 + INFO_ID] = A.id
  out[1 + INFO_STATE] = JOB_COMPLETED
  out[1 + INFO_GROUP] = o.group
  out[1 + INFO_PAYLOAD] = ''
  out[1 + INFO_ATTEMPTS] = o.attempts
  out[1 + INFO_TOKEN] = o.token
  out[1 + INFO_MAX_ATTEMPTS] = o.max
  out[1 + INFO_ALLOWED] = o.max
  out[1 + INFO_ENQUEUED_AT] = o.enqueued
  out[1 + INFO_WHEN] = o.fin
  out[1 + INFO_LAST_ERROR] = o.error
  out[1 + INFO_STARTED_AT] = o.started
  out[1 + INFO_FINISHED_AT] = o.fin
  out[1 + INFO_PROGRESS] = o.progress
  out[1 + INFO_RESULT] = o.result
  out[1 + INFO_SCHEDULE], out[1 + INFO_TICK] = tickOf(A.id)
  out[1 + INFO_RESULT_DROPPED] = o.dropped or ''
  out[1 + INFO_META] = ''
  return out
end
local g, p, at, allowed, mx, meta = unpackRecord(rec)
-- The set that holds the id is where the job is (I3).
local state, when = jobPlace(id)
local att, err, token = unpackAtt(rcall('HGET', K.att, id))
-- A dead job's times and progress moved to its outcome (deadOutcome).
local o = state == JOB_DEAD and unpackFin(rcall('HGET', K.fin, id)) or nil
out[1 + INFO_ID] = id
out[1 + INFO_STATE] = state
out[1 + INFO_GROUP] = g
out[1 + INFO_PAYLOAD] = p
out[1 + INFO_ATTEMPTS] = att
out[1 + INFO_TOKEN] = S(token)
out[1 + INFO_MAX_ATTEMPTS] = mx
out[1 + INFO_ALLOWED] = S(allowed)
out[1 + INFO_ENQUEUED_AT] = at
out[1 + INFO_WHEN] = when
out[1 + INFO_LAST_ERROR] = err
out[1 + INFO_STARTED_AT] = o and o.started or rcall('HGET', K.started, id) or '0'
out[1 + INFO_FINISHED_AT] = state == JOB_DEAD and when or '0'
out[1 + INFO_PROGRESS] = o and o.progress or rcall('HGET', K.progress, id) or ''
out[1 + INFO_RESULT] = ''
out[1 + INFO_SCHEDULE], out[1 + INFO_TICK] = tickOf(id)
out[1 + INFO_RESULT_DROPPED] = ''
out[1 + INFO_META] = meta or ''
return out
