--[[ defaults: queue-wide default weight, limit or max attempts.
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] "weight" | "limit" | "maxatt"   ARGV[3] value (limit "0" = unlimited)
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1 — a new default limit changes the serviceability only of lanes
-- that have leased jobs and no limit of their own; those are exactly the
-- fields of gactive, so the walk is O(lanes with leased jobs), not O(lanes).
]]
--@include keys
--@include status
--@include argInt
--@include fixRing

local what = ARGV[2]
local v
if what == 'weight' then v = argInt(ARGV[3], 1, 1000000)
elseif what == 'limit' then v = argInt(ARGV[3], 0, 1000000000)
elseif what == 'maxatt' then v = argInt(ARGV[3], 1, 1000000)
end
if not v then return { EINVAL, 'defaults: bad setting or value' } end

if what ~= 'limit' then
  rcall('HSET', K.config, what, S(v))
  return { OK }
end
local touched, before = {}, {}
local act = rcall('HKEYS', K.gactive)
for _, g in ipairs(act) do
  if rcall('HEXISTS', K.glimit, g) == 0 then
    touched[#touched + 1] = g
    before[g] = serviceable(g)
  end
end
if v == 0 then rcall('HDEL', K.config, 'limit') else rcall('HSET', K.config, 'limit', S(v)) end
CFG = nil -- re-read the new default
for _, g in ipairs(touched) do fixRing(g, before[g]) end
return { OK }
