--[[ burst: a lane's (or tenant's) limit and its burst ceiling, set together
-- (docs/architecture.md, "Lane limits that burst"; lua/includes/lane.lua,
-- laneState 'burst').
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `burst`): group (a plain lane or a tenant `T/`),
--   limit 1..LIMIT_MAX (its own), burst limit..LIMIT_MAX ("0" clears the
--   burst and keeps the limit)
-- Returns {OK}, or {EINVAL, msg} for a burst below the limit or a lane of a
-- tenant (its tenant may burst: `T/`); nothing changes then.
-- Keeps: I1 for both rings (the entry moves between the ring, the burst
-- ring and neither at once).
]]
--@include args
--@include setting

local A, bad = readArgs()
if not A then return bad end
local g = A.group
local lim, b = argInt(A.limit, 1, LIMIT_MAX), argInt(A.burst, 0, LIMIT_MAX)
if #g == 0 or not lim or not b then return { EINVAL, 'burst: bad group, limit or burst' } end
if b > 0 and b < lim then
  return { EINVAL, 'burst: the burst ceiling ' .. S(b) .. ' is below the limit ' .. S(lim) .. ' (it is the most leased at once)' }
end
if tenantOf(g) then
  return { EINVAL, "burst: '" .. g .. "' is a lane of a tenant: its tenant may burst ('" .. tenantOf(g) .. "')" }
end
local Q
Q, bad = settingQueue({ g }, g, 'burst', A.limit .. ' ' .. A.burst)
bad = bad or typeGuard(Life.keyTypes({}))
if not Q then return bad end
if bad then return bad end
local before = laneState(g)
setOwn(K.glimit, g, lim)
if b > 0 then
  rcall('HSET', Life.key('gburst'), g, S(b))
  Life.set(Q, 'burst', true)
else
  rcall('HDEL', Life.key('gburst'), g)
  if rcall('EXISTS', Life.key('gburst')) == 0 then Life.set(Q, 'burst', false) end
end
fixRing(Q, g, before)
return { OK }
