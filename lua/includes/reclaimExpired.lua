--@include fixRing
--@include toLane
--@include addActive
--@include attemptCap
--@include deadLetter
-- Brings back up to `max` jobs whose lease deadline has passed: to their lane
-- at the same mint position, or to the dead set when out of attempts.
local function reclaimExpired(now, max)
  local ids = rcall('ZRANGEBYSCORE', K.leases, '-inf', S(now), 'LIMIT', 0, max)
  for _, id in ipairs(ids) do
    rcall('ZREM', K.leases, id)
    local f = rcall('HMGET', jobKey(id), 'g', 'att', 'cap', 'mx')
    local g = f[1]
    if g then
      local before = serviceable(g)
      addActive(g, -1)
      rcall('HINCRBY', K.stats, 'failed', 1)
      if tonumber(f[2] or '0') >= attemptCap(f[3], f[4]) then
        deadLetter(id, g, now, 'lease expired')
      else
        toLane(id, g)
      end
      fixRing(g, before)
    end
  end
end
