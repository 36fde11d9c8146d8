#!lua flags=allow-oom
--[[ ackmany: acknowledge many leased jobs in one call (the jobs of a wclaim).
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] n   then n pairs: job id, token
-- Returns {OK, n statuses}: OK, ESTALE or ENOTFOUND for each job, each
-- settled on its own (a refused one changes nothing); or {EINVAL, msg} when
-- any pair is malformed, before any write.
-- Keeps: I1, I2, I3 as ack-15 does, job by job.
]]
--@include keys
--@include status
--@include argInt
--@include ackJob

local n = argInt(ARGV[2], 1, 10000)
if not n or #ARGV ~= 2 + 2 * n then return { EINVAL, 'ackmany: bad count' } end
local tokens = {}
for i = 1, n do
  local id, tok = argInt(ARGV[1 + 2 * i], 1, 9007199254740991), argInt(ARGV[2 + 2 * i], 1, 9007199254740991)
  if not id or not tok then return { EINVAL, 'ackmany: bad id or token' } end
  tokens[i] = tok
end
local out = { OK }
for i = 1, n do
  out[i + 1] = (ackJob(ARGV[1 + 2 * i], tokens[i]))
end
return out
