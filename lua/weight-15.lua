--[[ weight: set (or clear, back to the queue default) a lane's weight.
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] group   ARGV[3] weight 1..1000000, or "0" to clear
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1-I3 untouched: a weight tilts wclaim's K, never ring membership.
]]
--@include keys
--@include status
--@include argInt
--@include forgetIdleLane

local g = ARGV[2]
local w = argInt(ARGV[3], 0, 1000000)
if not g or #g == 0 or not w then return { EINVAL, 'weight: bad group or weight' } end
if w == 0 then
  rcall('HDEL', K.gweight, g)
  forgetIdleLane(g)
else
  rcall('HSET', K.gweight, g, S(w))
  rcall('ZADD', K.lanes, 'NX', 0, g)
end
return { OK }
