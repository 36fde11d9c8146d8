#!lua flags=no-writes
--[[ repairplan: one bounded step of a dry-run repair: reports, writes nothing (lua/includes/mend.lua).
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt done doneexp donecnt fin parents deps up
-- ARGV (lua/args.txt, `repairplan`): cursor, budget (as lua/repair.lua)
-- Returns {OK, next cursor ('' = done), change...}: each change a repair would make, one
-- line each. {EINVAL, msg} or {ELAYOUT, msg} change nothing.
]]
--@include mend

return repairCall(false)
