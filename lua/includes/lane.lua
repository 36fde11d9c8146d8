--@include base
-- Lane settings and state: a setting of the lane itself, else the queue
-- default, which sits in the same hash under the empty name (never a valid
-- group) so one HMGET answers both.
local function laneLimit(g)
  local v = rcall('HMGET', K.glimit, g, '')
  return tonumber(v[1] or v[2] or '')
end
local function laneWeight(g)
  local v = rcall('HMGET', K.gweight, g, '')
  return tonumber(v[1] or v[2] or '') or 1
end
-- serviceable(g) = pending jobs AND not paused AND below its ceiling (DESIGN.md).
local function serviceable(g)
  if rcall('EXISTS', pendingKey(g)) == 0 then return false end
  if rcall('SISMEMBER', K.paused, g) == 1 then return false end
  local lim = laneLimit(g)
  return not lim or tonumber(rcall('HGET', K.gactive, g) or '0') < lim
end
-- Lane g has just become serviceable: it joins the ring at the tail (I1) and
-- leaves a wake-up token for blocked claims (at most one).
local function joinRing(g)
  rcall('RPUSH', K.ring, g)
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
-- Keeps I1 after a change to lane g whose serviceability before the change
-- was `before`: RPUSH when it became serviceable, LREM when it stopped.
local function fixRing(g, before)
  local after = serviceable(g)
  if after and not before then
    joinRing(g)
  elseif before and not after then
    rcall('LREM', K.ring, 1, g)
  end
end
-- gactive[g] += n. The field goes at exactly zero; a negative count (a
-- corruption) stays visible to verify and repair instead of being hidden.
local function addActive(g, n)
  local v = rcall('HINCRBY', K.gactive, g, n)
  if v == 0 then rcall('HDEL', K.gactive, g) end
  return v
end
-- Drops lane g from the directory once it has no live job and no setting of
-- its own, so short-lived groups leave nothing behind.
local function forgetIdleLane(g)
  rcall('HDEL', K.glive, g)
  if rcall('HEXISTS', K.gweight, g) == 1 or rcall('HEXISTS', K.glimit, g) == 1
     or rcall('SISMEMBER', K.paused, g) == 1 then
    return
  end
  rcall('ZREM', K.lanes, g)
  rcall('HDEL', K.gserved, g)
end
-- glive[g] += n (live = pending, leased or delayed jobs); lists the lane.
local function addLive(g, n)
  local v = rcall('HINCRBY', K.glive, g, n)
  if n > 0 then rcall('ZADD', K.lanes, 'NX', 0, g) elseif v <= 0 then forgetIdleLane(g) end
  return v
end
