#!lua flags=allow-oom
--[[ extend: move a held lease's deadline to server now + lease ms.
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] job id   ARGV[3] token   ARGV[4] lease ms
-- Returns {OK, new deadline}, {ESTALE, msg}, {ENOTFOUND, msg} or {EINVAL, msg}.
-- Keeps: I1-I3 untouched (only a lease score moves).
]]
--@include keys
--@include status
--@include now
--@include argInt

local id = argInt(ARGV[2], 1, 9007199254740991)
local token = argInt(ARGV[3], 1, 9007199254740991)
local lease = argInt(ARGV[4], 1, 604800000)
if not id or not token or not lease then return { EINVAL, 'extend: bad id, token or lease' } end
local att = rcall('HGET', jobKey(ARGV[2]), 'att')
if rcall('EXISTS', jobKey(ARGV[2])) == 0 then return { ENOTFOUND, 'extend: job ' .. ARGV[2] .. ' not found' } end
if tonumber(att or '0') ~= token or not rcall('ZSCORE', K.leases, ARGV[2]) then
  return { ESTALE, 'extend: job ' .. ARGV[2] .. ' token ' .. ARGV[3] .. ' is stale (current ' .. (att or '0') .. ')' }
end
local deadline = S(serverNowMs() + lease)
rcall('ZADD', K.leases, 'XX', deadline, ARGV[2])
return { OK, deadline }
