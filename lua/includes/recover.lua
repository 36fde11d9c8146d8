--@include attempt
-- Bounded recovery, run once per claim call: up to `max` due delayed jobs
-- join their lanes and up to `max` expired leases end their attempt (back to
-- the lane at the same mint position, or dead when out of attempts).
local function recover(now, max)
  for _, id in ipairs(rcall('ZRANGEBYSCORE', K.delayed, '-inf', S(now), 'LIMIT', 0, max)) do
    rcall('ZREM', K.delayed, id)
    local rec = rcall('HGET', K.jobs, id)
    if rec then
      local g = unpackRecord(rec)
      local before = laneState(g)
      rcall('ZADD', pendingKey(g), id, id)
      fixRing(g, before)
    end
  end
  for _, id in ipairs(rcall('ZRANGEBYSCORE', K.leases, '-inf', S(now), 'LIMIT', 0, max)) do
    rcall('ZREM', K.leases, id)
    local rec = rcall('HGET', K.jobs, id)
    if rec then
      local g, _, _, cap = unpackRecord(rec)
      local before = laneState(g)
      addActive(g, -1)
      rcall('HINCRBY', K.stats, 'failed', 1)
      local att, _, token = unpackAtt(rcall('HGET', K.att, id))
      endAttempt(id, g, att, token, cap, 0, now, att >= cap and 'lease expired' or nil)
      fixRing(g, before)
    end
  end
end
-- Lanes whose token (or hand-set throttle) is due rejoin the ring, up to `max`.
local function rejoinThrottled(now, max)
  for _, g in ipairs(rcall('ZRANGEBYSCORE', K.throttled, '-inf', S(now), 'LIMIT', 0, max)) do
    rcall('ZREM', K.throttled, g)
    if not laneRate(g) then rcall('HDEL', K.gbucket, g) end  -- a hand-set throttle ended
    fixRing(g, 'out')  -- not in the ring while it waited
  end
end
-- Milliseconds until the next delayed job falls due, lease expires or lane
-- gets its token, -1 if none (0: more is due now than one call brings back).
local function nextDue(now)
  local best = -1
  for _, key in ipairs({ K.delayed, K.leases, K.throttled }) do
    local h = rcall('ZRANGE', key, 0, 0, 'WITHSCORES')
    if h[2] then
      local d = math.max(0, tonumber(h[2]) - now)
      if best < 0 or d < best then best = d end
    end
  end
  return best
end
