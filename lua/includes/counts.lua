--@include base
-- Jobs waiting in lanes, derived from counters the scripts keep anyway
-- (live jobs = enqueued + redriven - acked - dead-lettered - deleted by
-- hand), so no claim pays a write for it.
local function pendingCount()
  local c = rcall('HMGET', K.stats, 'enqueued', 'redriven', 'acked', 'dead', 'deleted')
  local live = (tonumber(c[1]) or 0) + (tonumber(c[2]) or 0) - (tonumber(c[3]) or 0) - (tonumber(c[4]) or 0)
    - (tonumber(c[5]) or 0)
  return live - rcall('ZCARD', K.leases) - rcall('ZCARD', K.delayed)
end
