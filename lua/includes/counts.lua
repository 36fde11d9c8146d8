--@include base
--@include flowKeys
-- Jobs in the leases or delayed set: its members but the mark.
local function jobsIn(key)
  local n = rcall('ZCARD', key)
  if n > 0 and rcall('ZSCORE', key, ZSET_MARK) then n = n - 1 end
  return n
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
