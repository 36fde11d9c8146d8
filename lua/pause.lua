--[[ pause / resume a lane. Idempotent; works for a lane with no jobs yet.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `pause`): group, paused ("1" = pause, "0" = resume)
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1 (a paused lane leaves the ring at once and rejoins on resume if
-- serviceable); its jobs stay where they are (I3).
]]
--@include args
--@include setting

local A, bad = readArgs()
if not A then return bad end
local g = A.group
if not g or #g == 0 or (A.paused ~= '1' and A.paused ~= '0') then
  return { EINVAL, 'pause: bad group or mode' }
end
local Q
Q, bad = settingQueue({ g }, g, A.paused == '1' and 'pause' or 'resume', A.paused)
if not Q then return bad end
local before = laneState(g)
if A.paused == '1' then
  rcall('SADD', K.paused, g)
  rcall('ZADD', K.lanes, 'NX', 0, g)
else
  rcall('SREM', K.paused, g)
end
fixRing(Q, g, before)
if A.paused == '0' and tonumber(rcall('HGET', K.glive, g) or '0') <= 0 then forgetIdleLane(g) end
return { OK }
