--[[ repair: one bounded step of a repair that writes (lua/includes/mend.lua).
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt done doneexp donecnt fin
-- ARGV (lua/args.txt, `repair`): cursor ('' to start, else the one the
--   previous step returned), budget (work per call, 1..BATCH_MAX items of
--   the walk)
-- Returns {OK, next cursor ('' = done), change...}: each change made, one
-- line each. {EINVAL, msg} or {ELAYOUT, msg} change nothing.
]]
--@include args
--@include mend
--@include typeGuard

local A, bad = readArgs()
if not A then return bad end
local budget = argInt(A.budget, 1, BATCH_MAX)
if not budget then return { EINVAL, 'repair: bad cursor or count' } end
local Q
Q, bad = readQueue()
bad = bad or guardKeys()  -- no half writes
if bad then return bad end
return repairStep(Q, true, A.cursor, budget)
