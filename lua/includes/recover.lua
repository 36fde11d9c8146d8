--@include attempt
--@include cancelHeld
--@include timeLimit
--@include fire
-- What is due at `now`, up to `max` of each: delayed jobs, expired leases,
-- lanes whose token is due. Read before a call's first write, so the rare
-- path that recovers them can check its keys first (no half writes).
local function dueWork(now, max)
  return {
    delayed = rcall('ZRANGEBYSCORE', K.delayed, '-inf', S(now), 'LIMIT', 0, max),
    leases = rcall('ZRANGEBYSCORE', K.leases, '-inf', S(now), 'LIMIT', 0, max),
    throttled = rcall('ZRANGEBYSCORE', K.throttled, '-inf', S(now), 'LIMIT', 0, max),
  }
end
-- Bounded recovery, run once per claim call: the due delayed jobs join
-- their lanes and the expired leases end their attempt (back to the lane at
-- the same mint position, or dead when out of attempts). An id settled
-- since `due` was read is skipped. Then the due schedule ticks fire
-- (lua/includes/fire.lua; Q.sched becomes the next one).
local function recover(Q, due, now)
  if due.ticks then Q.sched = Fire.fire(Q, due.ticks, now) end
  for _, id in ipairs(due.delayed) do
    rcall('ZREM', K.delayed, id)
    local rec = rcall('HGET', K.jobs, id)
    if rec then
      local g = unpackRecord(rec)
      local before = laneState(g)
      rcall('ZADD', pendingKey(g), id, id)
      fixRing(Q, g, before)
    end
  end
  for _, id in ipairs(due.leases) do
    local rec = rcall('ZREM', K.leases, id) == 1 and rcall('HGET', K.jobs, id)
    local why = rec and Q.cancels and rcall('HGET', Life.key('cancels'), id)
    if why then
      Life.endCanceled(Q, id, (unpackRecord(rec)), why, now)  -- lua/includes/cancelHeld.lua
    elseif rec then
      local g, _, _, allowed = unpackRecord(rec)
      local before = laneState(g)
      addActive(Q, g, -1)
      rcall('HINCRBY', K.stats, 'failed', 1)
      local att, _, token = unpackAtt(rcall('HGET', K.att, id))
      -- Past its time limit, the attempt timed out (lua/includes/timeLimit.lua).
      local over = Q.timeouts and Life.overLimit(token, Life.timeLimits({ id })[1], now)
      endAttempt(Q, id, g, att, token, allowed, 0, now, over and 'timed out' or (att >= allowed and 'lease expired' or nil))
      fixRing(Q, g, before)
    end
  end
end
-- Lanes whose token (or hand-set throttle) is due rejoin the ring.
local function rejoinThrottled(Q, due)
  for _, g in ipairs(due.throttled) do
    if rcall('ZREM', K.throttled, g) == 1 then
      if not laneRate(g) then rcall('HDEL', K.gbucket, g) end  -- a hand-set throttle ended
      fixRing(Q, g, 'out')  -- not in the ring while it waited
    end
  end
end
-- Milliseconds until the next delayed job falls due, lease expires, lane
-- gets its token or schedule ticks (Q.sched), -1 if none (0: more is due
-- now than one call brings back).
local function nextDue(now, Q)
  local best = Q.sched and math.max(0, Q.sched - now) or -1
  for _, key in ipairs({ K.delayed, K.leases, K.throttled }) do
    local h = rcall('ZRANGE', key, 0, 0, 'WITHSCORES')
    if h[2] and h[1] ~= ZSET_MARK then
      local d = math.max(0, tonumber(h[2]) - now)
      if best < 0 or d < best then best = d end
    end
  end
  return best
end
