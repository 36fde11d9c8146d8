--[[ cancel: cancel one job, wherever it waits (lua/includes/cancelJob.lua is
-- the one place a job is canceled).
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt est
-- ARGV (lua/args.txt, `cancel`): id; reason (0..REASON_MAX bytes, "" =
--   none); flags "" or "r" (remove a waiting job instead of dead-lettering
--   it; a leased one settles as canceled either way)
-- Returns {OK, the state the job had}:
--   JOB_PENDING, JOB_DELAYED  canceled now: dead-lettered with the last
--     error "canceled" (or "canceled: <reason>"), or removed;
--   JOB_LEASED  marked (hash `cancels`): its holder learns at its next
--     lease extension (WAS_CANCELED) or settlement, which settles it as
--     canceled whatever it reports, as does its lease running out; worker
--     engines hear of it at once from the `notice` stream;
--   JOB_DEAD    canceled before: nothing changed.
--   JOB_WAITING  a flow's parent waiting for its children: it and every
--     job below it that has not run are canceled in this call (pending,
--     delayed and waiting ones now, leased ones marked as above; finished
--     ones stay). A job of a flow is, to its own parent, a death with
--     reason "canceled" (its link's policy applies).
-- {ENOTFOUND, msg}: never enqueued (above the ids minted); {EFINISHED,
-- msg}: completed, dead for another reason, or no longer in the queue
-- (acked, or deleted); {EINVAL, msg}, {ESERVER, msg} (a key of the wrong
-- type). A refused call changes nothing.
-- Keeps: I1 (a pending job's lane leaves the ring when it runs empty), I3
-- (a lane, the delayed set or `parents` -> dead, or gone; a leased job
-- stays leased, marked, until it is settled or its lease runs out).
]]
--@include args
--@include lane
--@include lookup
--@include cancelJob
--@include flowTree

local A, bad = readArgs()
if not A then return bad end
if #A.reason > REASON_MAX or (A.flags ~= '' and A.flags ~= 'r') then
  return { EINVAL, 'cancel: bad reason or flags' }
end
local id, rec, Q = jobById('cancel', A.id)
if not id then
  if rec[1] ~= ENOTFOUND then return rec end
  if tonumber(A.id) > tonumber(rcall('GET', K.seq) or '0') then
    return { ENOTFOUND, 'cancel: job ' .. A.id .. ' not found (never enqueued)' }
  end
  local how = rcall('ZSCORE', okey('done'), A.id) and 'has completed' or 'is no longer in the queue (acked or deleted)'
  return { EFINISHED, 'cancel: job ' .. A.id .. ' ' .. how .. ': nothing to cancel' }
end
local g = unpackRecord(rec)
if rcall('ZSCORE', K.dead, id) then
  local _, err = unpackAtt(rcall('HGET', K.att, id))
  if err == 'canceled' or string.sub(err, 1, 10) == 'canceled: ' then return { OK, JOB_DEAD } end
  return { EFINISHED, 'cancel: job ' .. id .. ' is dead already (' .. (err ~= '' and err or 'no reason given') ..
    '): nothing to cancel' }
end
local why = #A.reason > 0 and ('canceled: ' .. A.reason) or 'canceled'
-- A flow's parent waiting for its children goes with every job below it
-- that has not run (flowBelow: at most FLOW_MAX, parents first); else the
-- job alone. Every lane they wait in, the flow's keys and the k: hash of
-- the job's own parent (which sees a death) are checked before the first
-- write.
local jobs, lanes, want = { id }, { g }, nil
if Q.flows then
  want = {}
  for _, name in ipairs(FL.KEYS) do want[FL.key(name)] = KEY_TYPES[name] end
  local up = rcall('HGET', FL.key('up'), id)
  local pid = up and FL.unpackUp(up)
  if pid and pid ~= '0' then want[FL.kids(pid)] = 'hash' end
  if rcall('ZSCORE', FL.key('parents'), id) then
    jobs = flowBelow(id)
    if #jobs > FLOW_MAX then
      return { EINVAL, 'cancel: job ' .. id .. ' heads more than ' .. FLOW_MAX .. ' unfinished jobs' }
    end
    local recs = callSliced('HMGET', K.jobs, jobs)
    for i = 2, #jobs do lanes[i] = recs[i] and unpackRecord(recs[i]) or false end
  end
end
local guard = {}
for i = 1, #jobs do if lanes[i] then guard[#guard + 1] = lanes[i] end end
bad = Life.cancelGuard(guard, want)
if bad then return bad end
-- Job m of lane gm leaves the place it waits in and is canceled (leased:
-- marked). Returns the state it had, nil when it had finished already.
local now, drop = serverNowMs(), A.flags == 'r'
local function cancelOne(m, gm)
  if rcall('ZSCORE', K.leases, m) then Life.mark(Q, m, why); return JOB_LEASED end
  local state
  if Q.flows and rcall('ZREM', FL.key('parents'), m) == 1 then
    rcall('HDEL', FL.key('deps'), m)
    state = JOB_WAITING
  elseif rcall('ZREM', K.delayed, m) == 1 then
    state = JOB_DELAYED
  else
    local before = laneState(gm)
    if rcall('ZREM', pendingKey(gm), m) == 0 then return nil end
    fixRing(Q, gm, before)
    state = JOB_PENDING
  end
  Life.cancel(Q, m, gm, 'canceled', why, drop, now)
  return state
end
-- The job first: its children then find their parent gone from `deps`,
-- so their deaths count down no one.
local state = cancelOne(id, g) or JOB_PENDING
for i = 2, #jobs do if lanes[i] then cancelOne(jobs[i], lanes[i]) end end
return { OK, state }
