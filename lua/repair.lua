--[[ repair: one bounded step of a repair that writes (lua/includes/mend.lua).
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt done doneexp donecnt fin
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] cursor: '' to start, else the one the previous step returned
-- ARGV[3] work per call, 1..BATCH_MAX (items of the walk)
-- Returns {OK, next cursor ('' = done), change...}: each change made, one
-- line each. {EINVAL, msg} or {ELAYOUT, msg} change nothing.
]]
--@include mend
--@include typeGuard

local budget = argInt(ARGV[3], 1, BATCH_MAX)
if type(ARGV[2]) ~= 'string' or not budget or #ARGV ~= 3 then return { EINVAL, 'repair: bad cursor or count' } end
local bad = layoutError() or guardKeys()  -- no half writes
if bad then return bad end
return repairStep(true, ARGV[2], budget)
