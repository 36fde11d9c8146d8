#!lua flags=allow-oom
--[[ ack, and the fused ack-then-claim (one round trip per job).
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] job id   ARGV[3] token   ARGV[4] lease ms of the next claim, or "0"
--   for a plain ack
-- Returns {OK} for a plain ack; with a claim, what claim-15 returns;
-- {ESTALE, msg} when the token is not the current attempt or the job is not
-- leased; {ENOTFOUND, msg}; {EINVAL, msg}. A refused ack claims nothing.
-- Keeps: I1 (a lane freed below its ceiling rejoins), I2 (gactive -1), I3
-- (the job leaves the leases and is deleted).
]]
--@include keys
--@include status
--@include now
--@include argInt
--@include ackJob
--@include claimTurn

local id = argInt(ARGV[2], 1, 9007199254740991)
local token = argInt(ARGV[3], 1, 9007199254740991)
local lease = argInt(ARGV[4], 0, 604800000)
if not id or not token or not lease then return { EINVAL, 'ack: bad id, token or lease' } end
local st, msg = ackJob(ARGV[2], token)
if st ~= OK then return { st, 'ack: ' .. msg } end
if lease == 0 then return { OK } end
return claimTurn(lease, 1, false, false)
