--@include base
--@include okey
-- Forgets retained outcomes past their time (doneexp) or their count
-- (donecnt: scored by the `kept` count at which they go), at most `max` of
-- each: the bounded trim every settling call runs while outcomes are on,
-- as enqueue trims idempotency keys. No daemon.
local function trimOutcomes(now, max)
  local old = rcall('ZRANGEBYSCORE', okey('doneexp'), '-inf', S(now), 'LIMIT', 0, max)
  local kept = rcall('HGET', K.stats, 'kept') or '0'
  local over = rcall('ZRANGEBYSCORE', okey('donecnt'), '-inf', kept, 'LIMIT', 0, max)
  for i = 1, #over do old[#old + 1] = over[i] end
  if #old == 0 then return 0 end
  callSliced('ZREM', okey('done'), old)
  callSliced('ZREM', okey('doneexp'), old)
  callSliced('ZREM', okey('donecnt'), old)
  callSliced('HDEL', okey('fin'), old)
  return #old
end
