--[[ delete: delete one job that is pending, delayed, dead or completed (retained).
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt est done doneexp donecnt fin
-- ARGV (lua/args.txt, `delete`): id
-- Returns {OK, state it had (JOB_COMPLETED: a retained outcome)}; {ENOTFOUND, msg}; {ELEASED, msg} while a
-- worker holds it (nothing changed).
-- Keeps: I1 (its lane leaves the ring when it had no other pending job),
-- I3 (the id leaves its one place with its record), the counters (a waiting
-- job deleted counts in `deleted`; a dead one left the live count already).
]]
--@include args
--@include lane
--@include lookup
--@include emit
--@include fin
--@include dropJob

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
local g = unpackRecord(rec)
local state
if rcall('ZREM', K.dead, id) == 1 then
  state = JOB_DEAD
elseif rcall('ZREM', K.delayed, id) == 1 then
  state = JOB_DELAYED
  rcall('HINCRBY', K.stats, 'deleted', 1)
  addLive(Q, g, -1)
else
  state = JOB_PENDING
  local before = laneState(g)
  rcall('ZREM', pendingKey(g), id)
  rcall('HINCRBY', K.stats, 'deleted', 1)
  fixRing(Q, g, before)
  addLive(Q, g, -1)
end
local att = unpackAtt(rcall('HGET', K.att, id))
Life.dropRecord(Q, id)
emit(Q, 'deleted', id, g, att)
return { OK, state }
