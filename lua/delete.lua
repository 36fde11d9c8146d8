--[[ delete: delete one job that is pending, delayed, dead or completed (retained).
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt est done doneexp donecnt fin
-- ARGV (lua/args.txt, `delete`): id
-- Returns {OK, state it had (JOB_COMPLETED: a retained outcome)}; {ENOTFOUND, msg}; {ELEASED, msg} while a
-- worker holds it, {EDEPENDS, msg} for a job of an unfinished flow (a parent
-- waits for it, or it waits for its children: lua/delflow.lua deletes the
-- whole flow) (nothing changed).
-- Keeps: I1 (its lane leaves the ring when it had no other pending job),
-- I3 (the id leaves its one place with its record), the counters (a waiting
-- job deleted counts in `deleted`; a dead one left the live count already).
]]
--@include args
--@include lane
--@include lookup
--@include emit
--@include fin
--@include removeJob
--@include flowTree

local A, bad = readArgs()
if not A then return bad end
local id, rec, Q = jobById('delete', A.id)
if not id then
  -- A retained outcome (a completed job) is deleted with its places.
  if rec[1] ~= ENOTFOUND or not rcall('ZSCORE', K.done, A.id) then return rec end
  id = A.id
  local o = unpackFin(rcall('HGET', K.fin, id))
  for _, key in ipairs({ K.done, K.doneexp, K.donecnt }) do rcall('ZREM', key, id) end
  rcall('HDEL', K.fin, id)
  emit(Q, 'deleted', id, o and o.group or '', o and o.attempts or 0)
  return { OK, JOB_COMPLETED }
end
if rcall('ZSCORE', K.leases, id) then
  return { ELEASED, 'delete: job ' .. id .. ' is leased by a worker: settle it or let its lease expire first' }
end
if Q.flows and flowBlocks(id) then
  return { EDEPENDS, 'delete: job ' .. id .. ' is part of a flow that has not finished (a parent waits for it, ' ..
    'or it waits for its children): delete the whole flow (echomq_delete_flow) or let it finish' }
end
return { OK, removeJob(Q, id, rec) }
