--[[ repair: one bounded step of a repair that writes (lua/includes/mend.lua).
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt done doneexp donecnt fin parents deps up
-- ARGV (lua/args.txt, `repair`): cursor ('' to start, else the one the
--   previous step returned), budget (work per call, 1..BATCH_MAX items of
--   the walk)
-- Returns {OK, next cursor ('' = done), change...}: each change made, one
-- line each. {EINVAL, msg} or {ELAYOUT, msg} change nothing.
]]
--@include mend

return repairCall(true)
