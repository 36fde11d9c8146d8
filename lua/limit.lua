--[[ limit: set (or clear) a lane's concurrency ceiling.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `limit`): group, limit 1..LIMIT_MAX or "0" to clear
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1 (the lane leaves or joins the ring at once), I2 (a lowered limit
-- stops new claims; jobs already leased keep their leases).
]]
--@include args
--@include lane
--@include typeGuard
--@include emit

local A, bad = readArgs()
if not A then return bad end
local g = A.group
local n = argInt(A.limit, 0, LIMIT_MAX)
if not g or #g == 0 or not n then return { EINVAL, 'limit: bad group or limit' } end
local Q
Q, bad = readQueue()
bad = bad or guardKeys({ g })  -- no half writes (and the tenant ring g may touch)
if bad then return bad end
-- A lane setting change is an event (docs/keys.md "Events").
if Q.outcomes then emit(Q, 'setting', '', g, 0, { 'setting', 'limit', 'value', A.limit }) end
local before = laneState(g)
if n == 0 then
  rcall('HDEL', K.glimit, g)
else
  rcall('HSET', K.glimit, g, S(n))
  rcall('ZADD', K.lanes, 'NX', 0, g)
end
fixRing(Q, g, before)
if n == 0 and tonumber(rcall('HGET', K.glive, g) or '0') <= 0 then forgetIdleLane(g) end
return { OK }
