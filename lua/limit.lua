--[[ limit: set (or clear) a lane's concurrency ceiling.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `limit`): group, limit 1..LIMIT_MAX or "0" to clear
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1 (the lane leaves or joins the ring at once), I2 (a lowered limit
-- stops new claims; jobs already leased keep their leases).
]]
--@include args
--@include setting

local A, bad = readArgs()
if not A then return bad end
local g = A.group
local Q, n = laneSetting(g, A.limit, LIMIT_MAX, 'limit', true)
if not Q then return n end
local before = laneState(g)
setOwn(K.glimit, g, n)
fixRing(Q, g, before)
return { OK }
