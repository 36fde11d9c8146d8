--[[ pause / resume a lane. Idempotent; works for a lane with no jobs yet.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] group   ARGV[3] "1" = pause, "0" = resume
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1 (a paused lane leaves the ring at once and rejoins on resume if
-- serviceable); its jobs stay where they are (I3).
]]
--@include lane
--@include typeGuard
--@include emit

local g = ARGV[2]
if not g or #g == 0 or (ARGV[3] ~= '1' and ARGV[3] ~= '0') then
  return { EINVAL, 'pause: bad group or mode' }
end
local bad = layoutError() or guardKeys({ g })  -- no half writes (and the tenant ring g may touch)
if bad then return bad end
-- A lane setting change is an event (docs/keys.md "Events").
if OUTCOMES then emit('setting', '', g, 0, { 'setting', ARGV[3] == '1' and 'pause' or 'resume', 'value', ARGV[3] }) end
local before = laneState(g)
if ARGV[3] == '1' then
  rcall('SADD', K.paused, g)
  rcall('ZADD', K.lanes, 'NX', 0, g)
else
  rcall('SREM', K.paused, g)
end
fixRing(g, before)
if ARGV[3] == '0' and tonumber(rcall('HGET', K.glive, g) or '0') <= 0 then forgetIdleLane(g) end
return { OK }
