--[[ weight: set (or clear, back to the queue default) a lane's weight.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `weight`): group, weight 1..WEIGHT_MAX or "0" to clear
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1-I3 untouched: a weight tilts wclaim's K, never ring membership.
]]
--@include args
--@include setting

local A, bad = readArgs()
if not A then return bad end
local Q, w = laneSetting(A.group, A.weight, WEIGHT_MAX, 'weight', false)
if not Q then return w end
setOwn(K.gweight, A.group, w)
return { OK }
