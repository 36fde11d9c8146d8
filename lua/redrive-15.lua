--[[ redrive: move dead jobs back to their lanes with a fresh attempt budget.
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] "ids" then job ids, or "all" then a chunk size (the oldest dead)
-- Returns {OK, moved, dead left}. The attempt count (fencing token) is kept
-- and the cap raised (cap = attempts + max), so old tokens stay stale.
-- Keeps: I1 (lanes that become serviceable join), I3 (dead -> lane).
]]
--@include keys
--@include status
--@include argInt
--@include fixRing
--@include toLane
--@include addLive

local ids
if ARGV[2] == 'ids' then
  if #ARGV < 3 or #ARGV > 10002 then return { EINVAL, 'redrive: 1..10000 ids' } end
  ids = {}
  for i = 3, #ARGV do
    if not argInt(ARGV[i], 1, 9007199254740991) then return { EINVAL, 'redrive: bad id' } end
    ids[#ids + 1] = ARGV[i]
  end
elseif ARGV[2] == 'all' then
  local chunk = argInt(ARGV[3], 1, 10000)
  if not chunk then return { EINVAL, 'redrive: bad chunk' } end
  ids = rcall('ZRANGE', K.dead, 0, chunk - 1)
else
  return { EINVAL, 'redrive: bad mode' }
end
local moved = 0
for _, id in ipairs(ids) do
  if rcall('ZREM', K.dead, id) == 1 then
    local jk = jobKey(id)
    local f = rcall('HMGET', jk, 'g', 'att', 'mx')
    if f[1] then
      local g = f[1]
      rcall('HSET', jk, 'cap', S(tonumber(f[2] or '0') + tonumber(f[3] or '1')))
      addLive(g, 1)
      local before = serviceable(g)
      toLane(id, g)
      fixRing(g, before)
      moved = moved + 1
    end
  end
end
if moved > 0 then rcall('HINCRBY', K.stats, 'redriven', moved) end
return { OK, moved, rcall('ZCARD', K.dead) }
