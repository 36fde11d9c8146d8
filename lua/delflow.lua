--[[ delflow: delete the unfinished flow a job belongs to, whole: from the
-- topmost parent that still waits down to every job not finished.
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt est
-- ARGV (lua/args.txt, `delflow`): id
-- Returns {OK, jobs deleted}; {ENOTFOUND, msg}; {ELEASED, msg} when a job
-- of the flow is leased by a worker now (nothing changed). A job in no
-- flow is deleted as lua/delete.lua does.
-- Keeps: I1, I3 and the counters as delete does, for each job; a parent
-- leaves `parents` with its count and children's outcomes.
]]
--@include args
--@include lookup
--@include removeJob

local A, bad = readArgs()
if not A then return bad end
local id, rec, Q = jobById('delete_flow', A.id)
if not id then return rec end
local members = Q.flows and flowMembers(id) or { id }
for _, m in ipairs(members) do
  if rcall('ZSCORE', K.leases, m) then
    return { ELEASED, 'delete_flow: job ' .. m .. ' of the flow is leased by a worker: settle it or let its ' ..
      'lease expire first (nothing was deleted)' }
  end
end
local n = 0
for _, m in ipairs(members) do
  local r = rcall('HGET', K.jobs, m)
  if r then removeJob(Q, m, r); n = n + 1 end
end
return { OK, n }
