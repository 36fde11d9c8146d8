--[[ redrive: move dead jobs back to their lanes with a fresh attempt budget.
-- KEYS: seq ring gweight glimit gactive paused dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt fin
-- ARGV (lua/args.txt, `redrive`): mode "ids", then jobs[]: id (1..BATCH_MAX
--   of them); or mode "all", then chunk: the oldest dead, that many at most
-- Returns {OK, a `redriven` head: moved, dead left}. The attempt count and
-- the delivery's fencing token are kept and the attempts it is allowed
-- raised (attempts so far + max), so old tokens stay stale.
-- Keeps: I1 (lanes that become serviceable join), I3 (dead -> lane).
]]
--@include args
--@include lane
--@include record
--@include typeGuard
--@include emit

local A, bad = readArgs()
if not A then return bad end
local ids
if A.mode == 'ids' then
  ids = A.jobs.id
  if #ids < 1 then return { EINVAL, 'redrive: 1..10000 ids' } end
  for i = 1, #ids do
    if not argInt(ids[i], 1, ID_MAX) then return { EINVAL, 'redrive: bad id' } end
  end
else
  local chunk = argInt(A.chunk, 1, BATCH_MAX)
  if not chunk then return { EINVAL, 'redrive: bad chunk' } end
  ids = rcall('ZRANGE', K.dead, 0, chunk - 1)
end
local Q
Q, bad = readQueue()
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
    rcall('HSET', K.jobs, id, withAllowed(rec, unpackAtt(rcall('HGET', K.att, id)) + tonumber(mx)))
    addLive(Q, g, 1)
    local before = laneState(g)
    rcall('ZADD', pendingKey(g), id, id)
    fixRing(Q, g, before)
    moved = moved + 1
    rcall('HDEL', K.fin, id)  -- its outcome: it lives again
    emit(Q, 'redriven', id, g, 0)
  end
end
if moved > 0 then rcall('HINCRBY', K.stats, 'redriven', moved) end
local out = { OK }  -- then a `redriven` head (lua/replies.txt: REDRIVEN_FIELDS values)
out[1 + REDRIVEN_MOVED] = moved
out[1 + REDRIVEN_DEAD_LEFT] = rcall('ZCARD', K.dead)
return out
