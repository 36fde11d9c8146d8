--[[ defaults: queue-wide default weight, limit or max attempts.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `defaults`): setting "weight" | "limit" | "maxatt",
--   value (limit "0" = unlimited)
-- The default weight and limit live in gweight[''] and glimit[''] (the empty
-- name is never a group), so a claim reads a lane's setting and the default
-- in one HMGET; max attempts lives in config.
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1 — a new default limit changes the serviceability only of lanes
-- that have leased jobs and no limit of their own; those are exactly the
-- fields of gactive, so the walk is O(lanes with leased jobs), not O(lanes).
]]
--@include args
--@include lane
--@include typeGuard
--@include emit

local A, bad = readArgs()
if not A then return bad end
local what = A.setting
local v
if what == 'weight' then v = argInt(A.value, 1, WEIGHT_MAX)
elseif what == 'limit' then v = argInt(A.value, 0, LIMIT_MAX)
elseif what == 'maxatt' then v = argInt(A.value, 1, ATTEMPTS_MAX)
end
if not v then return { EINVAL, 'defaults: bad setting or value' } end
local Q
Q, bad = readQueue()
bad = bad or guardKeys()  -- no half writes
if bad then return bad end
-- A lane setting change is an event (docs/keys.md "Events").
if Q.outcomes then emit(Q, 'setting', '', '', 0, { 'setting', 'default ' .. what, 'value', A.value }) end

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
for _, g in ipairs(touched) do fixRing(Q, g, before[g]) end
return { OK }
