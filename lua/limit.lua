--[[ limit: set (or clear) a lane's concurrency ceiling.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `limit`): group, limit 1..LIMIT_MAX or "0" to clear
-- (which clears a burst ceiling too: lua/burst.lua)
-- Returns {OK} or {EINVAL, msg} (also for a limit above the lane's burst).
-- Keeps: I1 (the lane leaves or joins the ring at once), I2 (a lowered limit
-- stops new claims; jobs already leased keep their leases).
]]
--@include args
--@include setting
--@include life

local A, bad = readArgs()
if not A then return bad end
local g = A.group
local Q, n = laneSetting(g, A.limit, LIMIT_MAX, 'limit', true)
if not Q then return n end
-- A burst ceiling goes with a limit of the lane's own (lua/burst.lua).
local b = Q.burst and tonumber(rcall('HGET', Life.key('gburst'), g) or '')
if b and n > b then
  return { EINVAL, 'limit: ' .. S(n) .. ' is above the burst ceiling ' .. S(b) .. ' of ' .. g ..
    ': set both with the burst call (echomq_set_limit_burst)' }
end
if Q.burst then  -- the burst ring and its settings (no half writes)
  local bad2 = typeGuard(Life.keyTypes({}))
  if bad2 then return bad2 end
end
local before = laneState(g)
setOwn(K.glimit, g, n)
if b and n == 0 then  -- no limit, no burst
  rcall('HDEL', Life.key('gburst'), g)
  if rcall('EXISTS', Life.key('gburst')) == 0 then Life.set(Q, 'burst', false) end
end
fixRing(Q, g, before)
return { OK }
