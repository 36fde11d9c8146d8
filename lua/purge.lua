--[[ purge: delete the waiting jobs of one lane, in bounded steps.
-- KEYS: seq ring gweight glimit gactive paused delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt est done doneexp donecnt fin started keep waiters progress
-- ARGV (lua/args.txt, `purge`): group, max (1..PURGE_MAX), cursor (0
--   first), clear ("1" = clear the lane's own settings when done)
-- A call removes up to max pending jobs of the lane; once none is left, it
-- looks at up to max entries of the delayed set from the cursor (a rank)
-- and removes the lane's, then likewise the finished place (retained
-- completed jobs: their outcomes are forgotten). Leased and dead jobs stay.
-- Returns {OK, then a `purged` head of PURGED_FIELDS values (lua/replies.txt):
-- removed, more (0/1), next cursor}.
-- Keeps: I1 (fixRing once per call), I3 (ids leave with their records),
-- the counters (`deleted`, glive).
]]
--@include flowLinks
--@include args
--@include lane
--@include record
--@include fin
--@include emit
--@include wakeWaiters
--@include life

local A, bad = readArgs()
if not A then return bad end
local g = A.group
local max = argInt(A.max, 1, PURGE_MAX)
local cursor = argInt(A.cursor, 0, ID_MAX)
if not g or #g == 0 or not max or not cursor then return { EINVAL, 'purge: bad group, max or cursor' } end
if laneNameProblem(g) then return { EINVAL, 'purge: ' .. laneNameProblem(g) } end
local Q
Q, bad = readQueue()
if bad then return bad end
local before = laneState(g)
local gone = {}
local popped = rcall('ZPOPMIN', pendingKey(g), max)
for i = 1, #popped, 2 do gone[#gone + 1] = popped[i] end
local more = rcall('EXISTS', pendingKey(g))
-- Cursors from DONE_BASE on walk the finished place (retained completed
-- jobs) by rank; below it, the delayed set.
local DONE_BASE = 4503599627370496  -- 2^52: no rank of the delayed set reaches it
local forgotten = 0
if more == 0 and #gone < max and cursor >= DONE_BASE then
  local from = cursor - DONE_BASE
  local page = rcall('ZRANGE', K.done, from, from + max - 1)
  local fins = #page > 0 and callSliced('HMGET', K.fin, page) or {}
  local mine = {}
  for i, id in ipairs(page) do
    local o = unpackFin(fins[i])
    if o and o.group == g then mine[#mine + 1] = id end
  end
  if #mine > 0 then
    for _, k in ipairs({ K.done, K.doneexp, K.donecnt }) do callSliced('ZREM', k, mine) end
    callSliced('HDEL', K.fin, mine)
  end
  forgotten = #mine
  cursor = cursor + #page - #mine
  more = (#page == max and rcall('ZCARD', K.done) > cursor - DONE_BASE) and 1 or 0
elseif more == 0 and #gone < max then
  -- The delayed set is queue-wide: walk it by rank from the cursor. Ranks
  -- past the cursor shift down by what this call removes.
  local page = rcall('ZRANGE', K.delayed, cursor, cursor + max - 1)
  local recs = #page > 0 and callSliced('HMGET', K.jobs, page) or {}
  local mine = {}
  for i, id in ipairs(page) do
    if recs[i] and unpackRecord(recs[i]) == g then mine[#mine + 1] = id end
  end
  if #mine > 0 then callSliced('ZREM', K.delayed, mine) end
  for _, id in ipairs(mine) do gone[#gone + 1] = id end
  cursor = cursor + #page - #mine
  more = (#page == max and rcall('ZCARD', K.delayed) > cursor) and 1 or 0
  if more == 0 and rcall('EXISTS', K.done) == 1 then more, cursor = 1, DONE_BASE end
else
  more = 1
end
if #gone > 0 then
  callSliced('HDEL', K.jobs, gone)
  callSliced('HDEL', K.att, gone)
  -- Their cost estimates go with them (pcall: as delete.lua).
  for i = 1, #gone, 1000 do redis.pcall('HDEL', K.est, unpack(gone, i, math.min(i + 999, #gone))) end
  if Q.outcomes then
    for _, key in ipairs({ K.started, K.progress, K.keep }) do callSliced('HDEL', key, gone) end
    local ws = callSliced('HMGET', K.waiters, gone)
    for i, id in ipairs(gone) do if ws[i] then wakeWaiters(id, ws[i]) end end
    callSliced('HDEL', K.waiters, gone)
    emit(Q, 'purged', '', g, 0, { 'count', S(#gone) })
  end
  rcall('HINCRBY', K.stats, 'deleted', #gone)
  if Q.cancels or Q.timeouts or Q.expiry then  -- their lifecycle entries
    for _, id in ipairs(gone) do Life.forget(Q, id, true) end
  end
  -- A purged job of a flow: its parent does what the link says (a death).
  if Q.flows then
    local now = serverNowMs()
    for _, id in ipairs(gone) do FL.childGone(Q, id, now, 0, 'purged') end
  end
end
if more == 0 and A.clear == '1' then
  for _, k in ipairs({ K.gweight, K.glimit, K.grate, K.gbucket, K.gcap }) do rcall('HDEL', k, g) end
  rcall('SREM', K.paused, g)
end
fixRing(Q, g, before)
if #gone > 0 then addLive(Q, g, -#gone)
elseif more == 0 and tonumber(rcall('HGET', K.glive, g) or '0') <= 0 then forgetIdleLane(g) end
local out = { OK }  -- then a `purged` head (lua/replies.txt: PURGED_FIELDS values)
out[1 + PURGED_REMOVED] = #gone + forgotten
out[1 + PURGED_MORE] = more
out[1 + PURGED_CURSOR] = S(cursor)
return out
