--[[ weight: set (or clear, back to the queue default) a lane's weight.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `weight`): group, weight 1..WEIGHT_MAX or "0" to clear
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1-I3 untouched: a weight tilts wclaim's K, never ring membership.
]]
--@include args
--@include lane
--@include typeGuard
--@include emit

local A, bad = readArgs()
if not A then return bad end
local g = A.group
local w = argInt(A.weight, 0, WEIGHT_MAX)
if not g or #g == 0 or not w then return { EINVAL, 'weight: bad group or weight' } end
local Q
Q, bad = readQueue()
bad = bad or guardKeys()  -- no half writes
if bad then return bad end
-- A lane setting change is an event (docs/keys.md "Events").
if Q.outcomes then emit(Q, 'setting', '', g, 0, { 'setting', 'weight', 'value', A.weight }) end
if w == 0 then
  rcall('HDEL', K.gweight, g)
  if tonumber(rcall('HGET', K.glive, g) or '0') <= 0 then forgetIdleLane(g) end
else
  rcall('HSET', K.gweight, g, S(w))
  rcall('ZADD', K.lanes, 'NX', 0, g)
end
return { OK }
