#!lua
--[[ enqueue: add n jobs (one call, ids consecutive in mint order).
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] delay ms (0 = ready now)   ARGV[3] max attempts (0 = queue default)
--   ARGV[4] n   then n pairs: group, payload
-- Returns {OK, first id, n} or {EINVAL, message}.
-- Keeps: I1 (a lane that becomes serviceable joins the ring once), I3 (each
-- job lands in exactly one place: its lane or the delayed set).
]]
--@include keys
--@include status
--@include now
--@include argInt
--@include fixRing
--@include addLive
--@include defaultMaxAttempts

local delay = argInt(ARGV[2], 0, 31622400000)
local maxatt = argInt(ARGV[3], 0, 1000000)
local n = argInt(ARGV[4], 1, 10000)
if not delay or not maxatt or not n then return { EINVAL, 'enqueue: bad delay, max attempts or count' } end
if #ARGV ~= 4 + 2 * n then return { EINVAL, 'enqueue: argument count does not match n' } end
for i = 1, n do
  if #ARGV[3 + 2 * i] == 0 then return { EINVAL, 'enqueue: empty group name' } end
end

local now = serverNowMs()
if maxatt == 0 then maxatt = defaultMaxAttempts() end
local last = rcall('INCRBY', K.seq, n)
local first = last - n + 1
local due = S(now + delay)
for i = 1, n do
  local g, payload = ARGV[3 + 2 * i], ARGV[4 + 2 * i]
  local id = S(first + i - 1)
  rcall('HSET', jobKey(id), 'g', g, 'p', payload, 'mx', S(maxatt), 'at', S(now))
  addLive(g, 1)
  if delay > 0 then
    rcall('ZADD', K.delayed, due, id)
  else
    local before = serviceable(g)
    rcall('ZADD', pendingKey(g), id, id)
    fixRing(g, before)
  end
end
rcall('HINCRBY', K.stats, 'enqueued', n)
return { OK, first, n }
