--[[ weight: set (or clear, back to the queue default) a lane's weight.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] group   ARGV[3] weight 1..WEIGHT_MAX, or "0" to clear
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1-I3 untouched: a weight tilts wclaim's K, never ring membership.
]]
--@include lane
--@include typeGuard
--@include emit

local g = ARGV[2]
local w = argInt(ARGV[3], 0, WEIGHT_MAX)
if not g or #g == 0 or not w then return { EINVAL, 'weight: bad group or weight' } end
local bad = layoutError() or guardKeys()  -- no half writes
if bad then return bad end
-- A lane setting change is an event (docs/keys.md "Events").
if OUTCOMES then emit('setting', '', g, 0, { 'setting', 'weight', 'value', ARGV[3] }) end
if w == 0 then
  rcall('HDEL', K.gweight, g)
  if tonumber(rcall('HGET', K.glive, g) or '0') <= 0 then forgetIdleLane(g) end
else
  rcall('HSET', K.gweight, g, S(w))
  rcall('ZADD', K.lanes, 'NX', 0, g)
end
return { OK }
