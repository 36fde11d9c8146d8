--@include base
--@include flowKeys
-- Jobs in the leases or delayed set: its members but the mark, which is
-- the one member scored +inf (lua/includes/marks.lua; a job's score is a
-- time): one ZCOUNT, O(log n) in the skiplist the mark keeps.
local function jobsIn(key)
  return rcall('ZCOUNT', key, '-inf', '(+inf')
end
-- Jobs waiting in lanes, derived from counters the scripts keep anyway
-- (live jobs = enqueued + redriven - acked - dead-lettered - deleted by
-- hand) less the jobs leased, delayed or waiting for their children (a
-- flow's parents), so no claim pays a write for it. `leased` and `delayed` are the
-- jobs in those sets when the caller has counted them already.
local function pendingCount(leased, delayed)
  local c = rcall('HMGET', K.stats, 'enqueued', 'redriven', 'acked', 'dead', 'deleted')
  local live = (tonumber(c[1]) or 0) + (tonumber(c[2]) or 0) - (tonumber(c[3]) or 0) - (tonumber(c[4]) or 0)
    - (tonumber(c[5]) or 0)
  return live - (leased or jobsIn(K.leases)) - (delayed or jobsIn(K.delayed)) - rcall('ZCARD', FL.key('parents'))
end
