--@include ringView
--@include laneTurn
--@include turnSize
--@include tenantTurn
--@include costTurns
--@include estimate
--@include lease
--@include burstRing
-- The turns of view v from turn t with `taken` jobs taken so far, until
-- the call's jobs or turns are done or the view has no entry left; cs: the
-- cost state (cost mode), tv: the tenants' views. Returns t and taken.
local function turnsOf(Q, C, v, cs, tv, t, taken)
  local n, turns, weighted, now, q, depth = C.n, C.turns, C.weighted, C.now, v.q, v.depth
  while taken < n and t < turns do
    local h = v.h
    if cs then
      if setAside(Q, C, v, cs) then break end
      h = v.h
    elseif h > v.nq then
      break
    end
    local g = q[h]
    local L, iv = g, nil
    if tv and string.byte(g, -1) == 47 then L, iv = tenantLane(Q, C, v, tv, g) end
    local k, d = 1, L and depth[L]
    if weighted and L then
      k, d = turnSize(v, g, L, iv, taken, n)
      if not k then break end
    end
    v.h, t = h + 1, t + 1
    local popped, got, st, est = nil, 0, nil, 0
    if L then popped, got, st, d = laneTurn(v, iv or v, L, k, d, taken, now) else d = 0 end
    taken = taken + got
    if cs and got > 0 and cs.estV then est = chargeEstimates(cs, g, popped) end
    if iv then st, d = tenantAfter(v, iv, g, got, now) end
    if cs then costAfter(Q, C, v, cs, g, st, d, est) end
  end
  return t, taken
end
-- The turns of a claim (docs/architecture.md, "The claim path"): up to
-- C.turns turns of the ring, C.n jobs at most in all, leased until C.now +
-- C.lease and appended to `out` as `job` rows. Exactly what C.turns claims
-- in a row would serve from the same state:
-- - a turn rotates the ring one step (head to tail) and serves the rotated
--   lane 1 job; or, weighted, K jobs (lua/includes/turnSize.lua);
-- - the lane leaves the ring (it was just put at the tail) when it is empty
--   or at its ceiling, and waits in `throttled` when out of tokens
--   (lua/includes/laneTurn.lua); no lane can join during the turns, but in
--   cost mode, where lanes in debt come back (lua/includes/costTurns.lua);
-- - a tenant's turn serves its inner ring's head lane
--   (lua/includes/tenantTurn.lua).
-- The lanes' settings are read before the first write, with the view of
-- the ring (lua/includes/ringView.lua); the turns work on that copy, written
-- back with one LPOP and one RPUSH (one LINDEX and one LMOVE or LPOP for a
-- single turn); per-lane and per-job fields take one call per hash
-- (lua/includes/lease.lua). Q: the queue's settings (readQueue); C: the
-- call (lua/take.lua). Returns the jobs taken, and true when the call
-- ended on its cost-mode budget (the caller says "more due now").
local function serveTurns(Q, C, out)
  local v, len, fast
  if C.n > 0 then v, len, fast = ringView(Q, C) end
  if not v and Q.burst and C.n > 0 then v = Life.emptyView(Q, C) end  -- the burst ring may have work
  if not v then return 0 end
  local cs = Q.cost and costView(Q, C, v, len)
  local tv = Q.tenants and { views = {}, viewed = {} }
  local t, taken = turnsOf(Q, C, v, cs, tv, 0, 0)
  -- Lanes above their ceiling, below their burst, only once the ring has
  -- nothing (lua/includes/burstRing.lua).
  if v.bq then taken = Life.burstTurns(Q, C, v, tv, t, taken, turnsOf) end
  writeRing(v, fast)
  if tv then writeInner(tv) end
  if #v.waiting > 0 then callSliced('ZADD', K.throttled, v.waiting) end
  if cs then writeCost(cs) end
  if not C.plain then spendTokens(v, C.now) end
  if taken == 0 then return 0, cs and cs.more end
  return leaseJobs(Q, C, v, out), cs and cs.more
end
