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
-- {ENOTFOUND, msg}: never enqueued (above the ids minted); {EFINISHED,
-- msg}: completed, dead for another reason, or no longer in the queue
-- (acked, or deleted); {EDEPENDS, msg}: a flow's parent waiting for its
-- children; {EINVAL, msg}, {ESERVER, msg} (a key of the wrong
-- type). A refused call changes nothing.
-- Keeps: I1 (a pending job's lane leaves the ring when it runs empty), I3
-- (a lane or the delayed set -> dead, or gone; a leased job stays leased,
-- marked, until it is settled or its lease runs out).
]]
--@include args
--@include lane
--@include lookup
--@include cancelJob
--@include flowKeys

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
-- A flow's parent waiting for its children is in no lane to take it from;
-- cancelling a flow whole (its unfinished children with it) is not in this
-- release, so the call is refused and the flow goes on.
if Q.flows and rcall('ZSCORE', FL.key('parents'), id) then
  return { EDEPENDS, 'cancel: job ' .. id .. ' waits for its children (a flow\'s parent): cancel its ' ..
    'children, or delete the flow (echomq_delete_flow)' }
end
bad = Life.cancelGuard({ g })
if bad then return bad end
local why = #A.reason > 0 and ('canceled: ' .. A.reason) or 'canceled'
if rcall('ZSCORE', K.leases, id) then
  if not rcall('HGET', Life.key('cancels'), id) then
    rcall('HSET', Life.key('cancels'), id, why)
    Life.set(Q, 'cancels', true)
    Life.notice(id)
  end
  return { OK, JOB_LEASED }
end
local state = JOB_PENDING
if rcall('ZREM', K.delayed, id) == 1 then
  state = JOB_DELAYED
else
  local before = laneState(g)
  rcall('ZREM', pendingKey(g), id)
  fixRing(Q, g, before)
end
Life.cancel(Q, id, g, 'canceled', why, A.flags == 'r', serverNowMs())
return { OK, state }
