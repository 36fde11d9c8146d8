--[[ delete: delete one job that is pending, delayed or dead.
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] job id
-- Returns {OK, state it had}; {ENOTFOUND, msg}; {ELEASED, msg} while a
-- worker holds it (nothing changed).
-- Keeps: I1 (its lane leaves the ring when it had no other pending job),
-- I3 (the id leaves its one place with its record), the counters (a waiting
-- job deleted counts in `deleted`; a dead one left the live count already).
]]
--@include lane
--@include lookup

local id, rec = jobById('delete')
if not id then return rec end
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
  addLive(g, -1)
else
  state = JOB_PENDING
  local before = laneState(g)
  rcall('ZREM', pendingKey(g), id)
  rcall('HINCRBY', K.stats, 'deleted', 1)
  fixRing(g, before)
  addLive(g, -1)
end
rcall('HDEL', K.jobs, id)
rcall('HDEL', K.att, id)
return { OK, state }
