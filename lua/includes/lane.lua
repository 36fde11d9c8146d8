--@include base
--@include life
-- Lane settings and state: a setting of the lane itself, else the queue
-- default, which sits in the same hash under the empty name (never a valid
-- group) so one HMGET answers both. A tenant entry (`T/`) has its own
-- settings only: the queue defaults are for lanes.
local function ownSetting(key, g)
  if isTenant(g) then return rcall('HGET', key, g) end
  local v = rcall('HMGET', key, g, '')
  return v[1] or v[2]
end
local function laneLimit(g)
  return tonumber(ownSetting(K.glimit, g) or '')
end
local function laneWeight(g)
  return tonumber(ownSetting(K.gweight, g) or '') or 1
end
-- A lane's rate limit: {jobs, per ms, burst} from "jobs per burst", or nil.
local function parseRate(v)
  if not v then return nil end
  local j, p, b = string.match(v, '^(%d+) (%d+) (%d+)$')
  return { tonumber(j), tonumber(p), tonumber(b) }
end
local function laneRate(g)
  return parseRate(ownSetting(K.grate, g) or nil)
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
-- Where lane g belongs now (serviceable, I1 in lua/verify.lua, with the rate limit):
-- 'ring' = pending jobs AND not paused AND below its ceiling AND a token
-- now; 'burst' = all of that but at or above its ceiling and below its
-- burst ceiling (hash `gburst`: the burst ring `bring`, served only when
-- the ring has nothing; docs/architecture.md, "Lane limits that burst");
-- 'wait' = all of that but the token, with the time it gets one (the lane
-- waits in `throttled` and rejoins by itself); 'out' otherwise.
-- `active` (optional) stands for gactive[g] (repair passes the true count).
-- A lane of a tenant belongs in its tenant's inner ring; the tenant entry
-- `T/` in the outer ring when its inner ring has a lane and the tenant runs,
-- is below its own limit (gactive[T/]: all its lanes) and has a token.
local function laneState(g, active)
  local tenant = isTenant(g)
  if tenant then
    if rcall('LLEN', innerKey(g)) == 0 then return 'out' end
  elseif rcall('EXISTS', pendingKey(g)) == 0 then
    return 'out'
  end
  if rcall('SISMEMBER', K.paused, g) == 1 then return 'out' end
  local lim, st = laneLimit(g), 'ring'
  if lim then
    local a = active or tonumber(rcall('HGET', K.gactive, g) or '0')
    if a >= lim then
      -- Only a lane at its ceiling reads its burst (lua/includes/burstRing.lua).
      local b = tonumber(rcall('HGET', P .. 'gburst', g) or '')
      if not b or a >= b then return 'out' end
      st = 'burst'
    end
  end
  local ok, _, due = rateState(laneRate(g), rcall('HGET', K.gbucket, g), serverNowMs())
  if ok then return st end
  return 'wait', due
end
local function serviceable(g) return laneState(g) == 'ring' end
-- Lane g has just become serviceable: it joins the ring at the tail (I1) and
-- leaves a wake-up token for blocked claims (at most one).
-- In cost mode a lane that joins leaves gdebt if it sat there (its v still
-- says whether it sits out again at its next turn: lua/includes/cost.lua).
-- A lane of a tenant joins its tenant's inner ring; the first lane there
-- may make the tenant serviceable (until then it was out: I1 both rings).
local fixRing
local function joinRing(Q, g)
  local te = Q.tenants and tenantOf(g)
  if te then
    if rcall('RPUSH', innerKey(te), g) == 1 then fixRing(Q, te, 'out') end
    return
  end
  if Q.cost then rcall('ZREM', K.gdebt, g) end
  rcall('RPUSH', K.ring, g)
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
-- Entry g (a plain lane or a tenant entry) joins or leaves the burst ring:
-- at or above its ceiling, below its burst (laneState 'burst'). A claim
-- serves it only when the ring has nothing (lua/includes/burstRing.lua): a
-- joining entry wakes a blocked claimer as a lane joining the ring does.
function Life.joinBurst(g)
  rcall('RPUSH', P .. 'bring', g)
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
function Life.leaveBurst(g) rcall('LREM', P .. 'bring', 1, g) end
-- The burst ceilings of `names` (name -> number), read before a call's
-- first write.
function Life.burstsOf(names)
  local b = {}
  if #names == 0 or rcall('EXISTS', P .. 'gburst') == 0 then return b end
  local v = callSliced('HMGET', P .. 'gburst', names)
  for i = 1, #names do b[names[i]] = tonumber(v[i] or '') end
  return b
end
-- The acks (lua/includes/acks.lua) of lanes with a burst ceiling: each goes
-- where its count now says, from where its count before (act0[i] of
-- lanes[i]) said (laneState with that count: the rest of its state is
-- as it was).
function Life.ackBursts(Q, lanes, act0, bursts)
  for i = 1, #lanes do
    local g = lanes[i]
    if bursts[g] then fixRing(Q, g, laneState(g, act0[i])) end
  end
end
-- Of the lanes that become serviceable by an enqueue (lua/includes/
-- enqueueLanes.lua, joinPlan), lane g at or above its ceiling `l` with
-- `a` leased: does its burst ceiling let it into the burst ring?
function Life.burstJoins(g, a, l)
  local b = tonumber(rcall('HGET', P .. 'gburst', g) or '')
  return b ~= nil and a >= l and a < b
end
-- Tenant entry te leaves every place a serviceable tenant may be (its
-- inner ring ran empty).
-- (In cost mode its v stays, as a paused lane's: lua/includes/cost.lua.)
local function tenantGone(Q, te)
  rcall('LREM', K.ring, 1, te)
  rcall('ZREM', K.throttled, te)
  if Q.cost then rcall('ZREM', K.gdebt, te) end
  if Q.burst then Life.leaveBurst(te) end
end
-- Lane g stopped being serviceable: out of its ring; a tenant whose inner
-- ring it leaves empty goes too.
local function leaveRing(Q, g)
  local te = Q.tenants and tenantOf(g)
  if not te then rcall('LREM', K.ring, 1, g); return end
  local key = innerKey(te)
  rcall('LREM', key, 1, g)
  if rcall('LLEN', key) == 0 then tenantGone(Q, te) end
end
-- Keeps I1 after a change to lane g whose laneState before the change was
-- `before`: RPUSH when it became serviceable, LREM when it stopped; a lane
-- that waits for a token is scheduled in `throttled` to rejoin by itself.
-- The same for a tenant entry in the outer ring. A change to a tenant's own
-- state is fixed before a change to its lanes' (so `before` holds).
function fixRing(Q, g, before)
  local after, due = laneState(g)
  if after ~= before then
    if before == 'ring' then leaveRing(Q, g) elseif before == 'burst' then Life.leaveBurst(g) end
    if after == 'ring' then joinRing(Q, g) elseif after == 'burst' then Life.joinBurst(g) end
  end
  if after == 'wait' then
    rcall('ZADD', K.throttled, S(due), g)
  elseif before == 'wait' then
    rcall('ZREM', K.throttled, g)
  end
end
-- Lane (or tenant entry) g, in no ring, goes where its state says: into
-- its ring (joinRing), into `throttled` to wait for its token, or nowhere.
local function placeLane(Q, g)
  local st, due = laneState(g)
  if st == 'ring' then joinRing(Q, g)
  elseif st == 'wait' then rcall('ZADD', K.throttled, S(due), g)
  elseif st == 'burst' then Life.joinBurst(g) end
end
-- gactive[g] += n. The field goes at exactly zero; a negative count (a
-- corruption) stays visible to verify and repair instead of being hidden.
-- A lane of a tenant counts in gactive[T/] too; a tenant freed from its
-- limit rejoins (before its lane's own fix: fixRing).
local function addActive(Q, g, n)
  local v = rcall('HINCRBY', K.gactive, g, n)
  if v == 0 then rcall('HDEL', K.gactive, g) end
  local te = Q.tenants and tenantOf(g)
  if te then
    local lim = n < 0 and laneLimit(te)
    local t = rcall('HINCRBY', K.gactive, te, n)
    if t == 0 then rcall('HDEL', K.gactive, te) end
    if lim and t < lim and t - n >= lim then
      fixRing(Q, te, Q.burst and laneState(te, t - n) or 'out')  -- out, or in the burst ring
    elseif lim and Q.burst and t >= lim then
      local b = tonumber(rcall('HGET', P .. 'gburst', te) or '')
      if b and t < b and t - n >= b then fixRing(Q, te, 'out') end  -- freed from its burst ceiling
    end
  end
  return v
end
-- Does lane g have a setting of its own (which keeps it in the directory)?
local function hasSetting(g)
  return rcall('HEXISTS', K.gweight, g) == 1 or rcall('HEXISTS', K.glimit, g) == 1
     or rcall('SISMEMBER', K.paused, g) == 1 or rcall('HEXISTS', K.grate, g) == 1
     or rcall('HEXISTS', K.gcap, g) == 1  -- (a burst goes with a limit of the lane's own)
end
-- Drops lane g from the directory once it has no live job and no setting of
-- its own, so short-lived groups leave nothing behind.
local function forgetIdleLane(g)
  rcall('HDEL', K.glive, g)
  if hasSetting(g) then return end
  rcall('ZREM', K.lanes, g)
  rcall('HDEL', K.gserved, g)
end
-- glive[g] += n (live = pending, leased or delayed jobs); lists the lane,
-- and for a lane of a tenant the tenant (glive[T/]: all its lanes).
local function addLive(Q, g, n)
  local te = Q.tenants and tenantOf(g)
  if te then
    local t = rcall('HINCRBY', K.glive, te, n)
    if n > 0 then rcall('ZADD', K.lanes, 'NX', 0, te) elseif t <= 0 then forgetIdleLane(te) end
  end
  local v = rcall('HINCRBY', K.glive, g, n)
  if n > 0 then rcall('ZADD', K.lanes, 'NX', 0, g) elseif v <= 0 then forgetIdleLane(g) end
  return v
end
