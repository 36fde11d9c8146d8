#!lua flags=allow-oom
--[[ fail: end the current attempt; retry (at once or after a delay) or
-- dead-letter when the job has used its attempts.
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] job id   ARGV[3] token   ARGV[4] reason   ARGV[5] retry delay ms
--   (0 = straight back to its lane, -1 = exponential backoff 1 s * 2^(att-1),
--   at most 1 h)
-- Returns {OK, outcome (1 retry, 2 delayed, 3 dead)}, {ESTALE, msg},
-- {ENOTFOUND, msg} or {EINVAL, msg}.
-- Keeps: I1, I2 (gactive -1), I3 (leases -> lane, delayed or dead).
]]
--@include keys
--@include status
--@include now
--@include argInt
--@include fixRing
--@include addActive
--@include attemptCap
--@include deadLetter
--@include toLane

local id = argInt(ARGV[2], 1, 9007199254740991)
local token = argInt(ARGV[3], 1, 9007199254740991)
local delay = argInt(ARGV[5], -1, 31622400000)
if not id or not token or not delay or #ARGV[4] > 4096 then
  return { EINVAL, 'fail: bad id, token, reason or delay' }
end
local jk = jobKey(ARGV[2])
local f = rcall('HMGET', jk, 'g', 'att', 'cap', 'mx')
if not f[1] then return { ENOTFOUND, 'fail: job ' .. ARGV[2] .. ' not found' } end
if tonumber(f[2] or '0') ~= token or not rcall('ZSCORE', K.leases, ARGV[2]) then
  return { ESTALE, 'fail: job ' .. ARGV[2] .. ' token ' .. ARGV[3] .. ' is stale (current ' .. (f[2] or '0') .. ')' }
end
local g = f[1]
local now = serverNowMs()
local before = serviceable(g)
rcall('ZREM', K.leases, ARGV[2])
addActive(g, -1)
rcall('HINCRBY', K.stats, 'failed', 1)
rcall('HSET', jk, 'err', ARGV[4])
local outcome
if token >= attemptCap(f[3], f[4]) then
  deadLetter(ARGV[2], g, now, nil)
  outcome = 3
elseif delay == 0 then
  toLane(ARGV[2], g)
  outcome = 1
else
  if delay < 0 then delay = math.min(1000 * 2 ^ (token - 1), 3600000) end
  rcall('ZADD', K.delayed, S(now + delay), ARGV[2])
  outcome = 2
end
fixRing(g, before)
return { OK, outcome }
