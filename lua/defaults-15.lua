--[[ defaults: queue-wide default weight, limit or max attempts.
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] "weight" | "limit" | "maxatt"   ARGV[3] value (limit "0" = unlimited)
-- The default weight and limit live in gweight[''] and glimit[''] (the empty
-- name is never a group), so a claim reads a lane's setting and the default
-- in one HMGET; max attempts lives in config.
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

if what == 'maxatt' then
  rcall('HSET', K.config, 'maxatt', S(v))
  return { OK }
end
if what == 'weight' then
  rcall('HSET', K.gweight, '', S(v))
  return { OK }
end
local touched, before = {}, {}
for _, g in ipairs(rcall('HKEYS', K.gactive)) do
  if rcall('HEXISTS', K.glimit, g) == 0 then
    touched[#touched + 1] = g
    before[g] = serviceable(g)
  end
end
if v == 0 then rcall('HDEL', K.glimit, '') else rcall('HSET', K.glimit, '', S(v)) end
for _, g in ipairs(touched) do fixRing(g, before[g]) end
return { OK }
