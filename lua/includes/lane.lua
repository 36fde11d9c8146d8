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
-- A lane's rate limit: {jobs, per ms, burst} from "jobs per burst", or nil.
local function parseRate(v)
  if not v then return nil end
  local j, p, b = string.match(v, '^(%d+) (%d+) (%d+)$')
  return { tonumber(j), tonumber(p), tonumber(b) }
end
local function laneRate(g)
  local v = rcall('HMGET', K.grate, g, '')
  return parseRate(v[1] or v[2] or nil)
end
-- The token bucket of a lane with rate r and bucket state b ("tokens base
-- ms", absent = full), at `now`. A base in the future is a hand-set
-- throttle: no job before it, whatever the rate. Returns: may it be served
-- now, its tokens (math.huge without a rate), and when not, the time it may.
local function rateState(r, b, now)
  local tok, base
  if b then
    local t, l = string.match(b, '^(%-?[%d.]+) (%d+)$')
    tok, base = tonumber(t), tonumber(l)
  end
  if base and base > now then return false, 0, base end
  if not r then return true, math.huge, nil end
  if not tok then tok = r[3] else tok = math.min(r[3], tok + (now - base) * r[1] / r[2]) end
  if tok >= 1 then return true, tok, nil end
  return false, tok, now + math.ceil((1 - tok) * r[2] / r[1])
end
local function packBucket(tok, now) return string.format('%.6f %d', tok, now) end
-- Where lane g belongs now (DESIGN.md's serviceable, with the rate limit):
-- 'ring' = pending jobs AND not paused AND below its ceiling AND a token
-- now; 'wait' = all of that but the token, with the time it gets one (the
-- lane waits in `throttled` and rejoins by itself); 'out' otherwise.
-- `active` (optional) stands for gactive[g] (repair passes the true count).
local function laneState(g, active)
  if rcall('EXISTS', pendingKey(g)) == 0 or rcall('SISMEMBER', K.paused, g) == 1 then return 'out' end
  local lim = laneLimit(g)
  if lim and (active or tonumber(rcall('HGET', K.gactive, g) or '0')) >= lim then return 'out' end
  local ok, _, due = rateState(laneRate(g), rcall('HGET', K.gbucket, g), serverNowMs())
  if ok then return 'ring' end
  return 'wait', due
end
local function serviceable(g) return laneState(g) == 'ring' end
-- Lane g has just become serviceable: it joins the ring at the tail (I1) and
-- leaves a wake-up token for blocked claims (at most one).
-- In cost mode a lane that joins leaves gdebt if it sat there (its v still
-- says whether it sits out again at its next turn: lua/includes/cost.lua).
local function joinRing(g)
  if COST_Q then rcall('ZREM', K.gdebt, g) end
  rcall('RPUSH', K.ring, g)
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
-- Keeps I1 after a change to lane g whose laneState before the change was
-- `before`: RPUSH when it became serviceable, LREM when it stopped; a lane
-- that waits for a token is scheduled in `throttled` to rejoin by itself.
local function fixRing(g, before)
  local after, due = laneState(g)
  if after == 'ring' and before ~= 'ring' then
    joinRing(g)
  elseif before == 'ring' and after ~= 'ring' then
    rcall('LREM', K.ring, 1, g)
  end
  if after == 'wait' then
    rcall('ZADD', K.throttled, S(due), g)
  elseif before == 'wait' then
    rcall('ZREM', K.throttled, g)
  end
end
-- gactive[g] += n. The field goes at exactly zero; a negative count (a
-- corruption) stays visible to verify and repair instead of being hidden.
local function addActive(g, n)
  local v = rcall('HINCRBY', K.gactive, g, n)
  if v == 0 then rcall('HDEL', K.gactive, g) end
  return v
end
-- Does lane g have a setting of its own (which keeps it in the directory)?
local function hasSetting(g)
  return rcall('HEXISTS', K.gweight, g) == 1 or rcall('HEXISTS', K.glimit, g) == 1
     or rcall('SISMEMBER', K.paused, g) == 1 or rcall('HEXISTS', K.grate, g) == 1
     or rcall('HEXISTS', K.gcap, g) == 1
end
-- Drops lane g from the directory once it has no live job and no setting of
-- its own, so short-lived groups leave nothing behind.
local function forgetIdleLane(g)
  rcall('HDEL', K.glive, g)
  if hasSetting(g) then return end
  rcall('ZREM', K.lanes, g)
  rcall('HDEL', K.gserved, g)
end
-- glive[g] += n (live = pending, leased or delayed jobs); lists the lane.
local function addLive(g, n)
  local v = rcall('HINCRBY', K.glive, g, n)
  if n > 0 then rcall('ZADD', K.lanes, 'NX', 0, g) elseif v <= 0 then forgetIdleLane(g) end
  return v
end
