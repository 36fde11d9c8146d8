#!lua flags=no-writes
--[[ verify: check the invariants (I1-I3 below) and the counters (read-only).
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt done doneexp donecnt fin started keep waiters progress parents deps up
-- ARGV (lua/args.txt, `verify`): none
-- Returns {OK, violation...}: one line per violation, none when healthy.
--   I1 the ring holds every serviceable lane exactly once and nothing else;
--      with tenants, both rings: the outer ring its serviceable plain lanes
--      and tenant entries, each tenant's inner ring its serviceable lanes
--      (lua/includes/verifyRings.lua);
--   I2 gactive[g] = leased jobs of g (so never negative);
--   I3 every live job id is in exactly one place (a lane, leases, delayed,
--      dead, waiting for its children (a flow's parent), or finished: a
--      retained completed job), each place holds only
--      existing jobs, no record, attempt count or outcome is orphaned, and
--      a delivery state names its job's lane;
--   flows: each waiting parent's count is its children not finished, each
--      link of a job that exists (lua/includes/flowCheck.lua);
--   and: the pending counter, glive per lane, lanes listed in the directory,
--   the schedules (lua/includes/schedCheck.lua);
--   first of all, that every key holds its type (else only those lines)
--   (lua/includes/verifyJobs.lua: I2, I3, the types and the counters).
-- O(jobs + lanes): an operator's and a test's call, not a hot path.
]]
--@include args
--@include verifyJobs
--@include verifyRings
--@include outcomeCheck
--@include schedCheck
--@include flowCheck

local A, bad = readArgs()
if not A then return bad end
local Q
Q, bad = readQueue()
if bad then return bad end
local out = { OK }
local function report(msg) out[#out + 1] = msg end
local inner = verifyTypes(report)
if #out > 1 then return out end
local seen = verifyJobs(report)
verifyOutcomes(seen.place, report)
verifyAtt(report)
verifyActive(seen, report)
verifyRings(Q, seen, inner, report)
verifyCounters(seen, report)
checkSchedules(report)
verifyFlows(seen, report)
Life.verifyJobs(Q, seen.place, report)  -- the lifecycle's keys (lua/includes/verifyLife.lua)
return out
