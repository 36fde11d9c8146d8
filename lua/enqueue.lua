--[[ enqueue: add n jobs in one call (ids consecutive in mint order).
-- KEYS: seq ring gweight glimit gactive paused delayed lanes glive stats config wake jobs
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] delay ms (0 = ready now)   ARGV[3] max attempts (0 = queue default)
-- ARGV[4] n   then n pairs: group, payload
-- Returns {OK, first id, n}, {EINVAL, msg} or {ELAYOUT, msg} (nothing written).
-- Keeps: I1 (a lane that becomes serviceable joins the ring once, lanes in
-- the order of their first job), I3 (each job lands in exactly one place:
-- its lane or the delayed set). Writes are per lane and per hash, not per job.
]]
--@include many
--@include record

local delay = argInt(ARGV[2], 0, DELAY_MAX_MS)
local maxatt = argInt(ARGV[3], 0, ATTEMPTS_MAX)
local n = argInt(ARGV[4], 1, BATCH_MAX)
if not delay or not maxatt or not n then return { EINVAL, 'enqueue: bad delay, max attempts or count' } end
if #ARGV ~= 4 + 2 * n then return { EINVAL, 'enqueue: argument count does not match n' } end
for i = 1, n do
  if #ARGV[3 + 2 * i] == 0 then return { EINVAL, 'enqueue: empty group name' } end
end
local bad = layoutError()
if bad then return bad end

local now = serverNowMs()
if maxatt == 0 then maxatt = tonumber(rcall('HGET', K.config, 'maxatt') or '') or DEFAULT_MAX_ATTEMPTS end
rcall('HSET', K.config, 'layout', KEY_LAYOUT)
local last = rcall('INCRBY', K.seq, n)
local first = last - n + 1
-- Records, and the jobs of each lane in mint order.
local recs, lanes, idsOf = {}, {}, {}
for i = 1, n do
  local g = ARGV[3 + 2 * i]
  local id = S(first + i - 1)
  recs[#recs + 1] = id
  recs[#recs + 1] = packRecord(now, maxatt, maxatt, g, ARGV[4 + 2 * i])
  if not idsOf[g] then idsOf[g] = {}; lanes[#lanes + 1] = g end
  local l = idsOf[g]
  l[#l + 1] = id
end
callSliced('HSET', K.jobs, recs)
rcall('HINCRBY', K.stats, 'enqueued', n)
local count, dir = {}, {}
for _, g in ipairs(lanes) do
  count[g] = #idsOf[g]
  dir[#dir + 1] = '0'; dir[#dir + 1] = g
end
addCounts(K.glive, lanes, count)
callSliced('ZADD', K.lanes, dir, { 'NX' })
if delay > 0 then
  local due, d = S(now + delay), {}
  for _, g in ipairs(lanes) do
    for _, id in ipairs(idsOf[g]) do d[#d + 1] = due; d[#d + 1] = id end
  end
  callSliced('ZADD', K.delayed, d)
  return { OK, first, n }
end
-- A lane becomes serviceable when it was empty, runs and is below its ceiling.
local lim = laneSettings(lanes, false)
local limited = {}
for _, g in ipairs(lanes) do if lim[g] then limited[#limited + 1] = g end end
local act = #limited > 0 and readFields(K.gactive, limited) or {}
local paused = callSliced('SMISMEMBER', K.paused, lanes)
local join = {}
for i, g in ipairs(lanes) do
  local was = rcall('EXISTS', pendingKey(g)) == 1
  local z = {}
  for _, id in ipairs(idsOf[g]) do z[#z + 1] = id; z[#z + 1] = id end
  callSliced('ZADD', pendingKey(g), z)
  if not was and paused[i] == 0 and not (lim[g] and tonumber(act[g] or '0') >= lim[g]) then
    join[#join + 1] = g
  end
end
if #join > 0 then
  callSliced('RPUSH', K.ring, join)
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
return { OK, first, n }
