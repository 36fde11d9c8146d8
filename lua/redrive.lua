--[[ redrive: move dead jobs back to their lanes with a fresh attempt budget.
-- KEYS: seq ring gweight glimit gactive paused dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt fin
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] "ids" then job ids, or "all" then a chunk size (the oldest dead)
-- Returns {OK, a `redriven` head: moved, dead left}. The attempt count (fencing token) is kept
-- and the cap raised (cap = attempts + max), so old tokens stay stale.
-- Keeps: I1 (lanes that become serviceable join), I3 (dead -> lane).
]]
--@include lane
--@include record
--@include typeGuard
--@include emit

local ids
if ARGV[2] == 'ids' then
  if #ARGV < 3 or #ARGV > 2 + BATCH_MAX then return { EINVAL, 'redrive: 1..10000 ids' } end
  ids = {}
  for i = 3, #ARGV do
    if not argInt(ARGV[i], 1, ID_MAX) then return { EINVAL, 'redrive: bad id' } end
    ids[#ids + 1] = ARGV[i]
  end
elseif ARGV[2] == 'all' then
  local chunk = argInt(ARGV[3], 1, BATCH_MAX)
  if not chunk then return { EINVAL, 'redrive: bad chunk' } end
  ids = rcall('ZRANGE', K.dead, 0, chunk - 1)
else
  return { EINVAL, 'redrive: bad mode' }
end
local bad = layoutError()
if bad then return bad end
-- No half writes: the keys, and the pending sets of the jobs' lanes.
local lanesOf = {}
for _, rec in ipairs(#ids > 0 and callSliced('HMGET', K.jobs, ids) or {}) do
  if rec then lanesOf[#lanesOf + 1] = (unpackRecord(rec)) end
end
bad = guardKeys(lanesOf)
if bad then return bad end
local moved = 0
for _, id in ipairs(ids) do
  local rec = rcall('HGET', K.jobs, id)
  if rec and rcall('ZREM', K.dead, id) == 1 then
    local g, _, _, _, mx = unpackRecord(rec)
    rcall('HSET', K.jobs, id, withCap(rec, unpackAtt(rcall('HGET', K.att, id)) + tonumber(mx)))
    addLive(g, 1)
    local before = laneState(g)
    rcall('ZADD', pendingKey(g), id, id)
    fixRing(g, before)
    moved = moved + 1
    rcall('HDEL', K.fin, id)  -- its outcome: it lives again
    emit('redriven', id, g, 0)
  end
end
if moved > 0 then rcall('HINCRBY', K.stats, 'redriven', moved) end
local out = { OK }  -- then a `redriven` head (lua/replies.txt: REDRIVEN_FIELDS values)
out[1 + REDRIVEN_MOVED] = moved
out[1 + REDRIVEN_DEAD_LEFT] = rcall('ZCARD', K.dead)
return out
