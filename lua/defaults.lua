--[[ defaults: queue-wide default weight, limit or max attempts.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] "weight" | "limit" | "maxatt"   ARGV[3] value (limit "0" = unlimited)
-- The default weight and limit live in gweight[''] and glimit[''] (the empty
-- name is never a group), so a claim reads a lane's setting and the default
-- in one HMGET; max attempts lives in config.
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1 — a new default limit changes the serviceability only of lanes
-- that have leased jobs and no limit of their own; those are exactly the
-- fields of gactive, so the walk is O(lanes with leased jobs), not O(lanes).
]]
--@include lane
--@include typeGuard
--@include emit

local what = ARGV[2]
local v
if what == 'weight' then v = argInt(ARGV[3], 1, WEIGHT_MAX)
elseif what == 'limit' then v = argInt(ARGV[3], 0, LIMIT_MAX)
elseif what == 'maxatt' then v = argInt(ARGV[3], 1, ATTEMPTS_MAX)
end
if not v then return { EINVAL, 'defaults: bad setting or value' } end
local bad = layoutError() or guardKeys()  -- no half writes
if bad then return bad end
-- A lane setting change is an event (docs/keys.md "Events").
if OUTCOMES then emit('setting', '', '', 0, { 'setting', 'default ' .. what, 'value', ARGV[3] }) end

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
  if g ~= COUNTERS_MARK and rcall('HEXISTS', K.glimit, g) == 0 then
    touched[#touched + 1] = g
    before[g] = laneState(g)
  end
end
if v == 0 then rcall('HDEL', K.glimit, '') else rcall('HSET', K.glimit, '', S(v)) end
for _, g in ipairs(touched) do fixRing(g, before[g]) end
return { OK }
