#!lua flags=allow-oom
--[[ claim / wclaim: one turn of the ring (see includes/claimTurn.lua).
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] lease ms   ARGV[3] max jobs (1 for claim)   ARGV[4] "1" = weighted
--   (wclaim)   ARGV[5] "1" = pass a wake-up on (blocking claimers)
-- Returns {OK, n, n x (id, group, payload, token, lease deadline, enqueued
-- at, max attempts, last error)}, {EMPTY, ms to the next due time or -1}, or {EINVAL, msg}.
-- Keeps: I1 (rotation moves, never adds or drops a serviceable lane; a lane
-- that stops being serviceable leaves), I2 (gactive += jobs leased, never past
-- the limit), I3 (pending -> leases).
]]
--@include keys
--@include status
--@include now
--@include argInt
--@include claimTurn

local lease = argInt(ARGV[2], 1, 604800000)
local max = argInt(ARGV[3], 1, 10000)
if not lease or not max then return { EINVAL, 'claim: bad lease or max' } end
return claimTurn(lease, max, ARGV[4] == '1', ARGV[5] == '1')
