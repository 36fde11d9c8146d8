--@include ringView
--@include laneTurn
--@include turnSize
--@include tenantTurn
--@include costTurns
--@include estimate
--@include lease
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
  local v = C.n > 0 and ringView(Q, C)
  if not v then return 0 end
  local cs = Q.cost and costView(Q, C, v)
  local tv = Q.tenants and { views = {}, viewed = {} }
  local n, turns, weighted = C.n, C.turns, C.weighted
  while v.taken < n and v.t < turns and (v.h <= v.nq or cs) do
    if cs and setAside(Q, C, v, cs) then break end
    local g = v.q[v.h]
    local L, iv = g, nil
    if tv and string.byte(g, -1) == 47 then L, iv = tenantLane(Q, C, v, tv, g) end
    local k, d = 1, L and v.depth[L]
    if weighted and L then
      k, d = turnSize(v, g, L, iv, n)
      if not k then break end
    end
    v.h, v.t = v.h + 1, v.t + 1
    local popped, got, a, l, tk, est = nil, 0, 0, nil, nil, 0
    if L then popped, got, d, a, tk = laneTurn(v, L, k, d); l = v.lim[L] else d = 0 end
    if cs and got > 0 and cs.estV then est = chargeEstimates(cs, g, popped) end
    if iv then d, a, l, tk = tenantAfter(v, iv, g, L, got, d, a, l, tk) end
    local st = requeue(v, v, g, d, a, l, tk)
    if st ~= 'ring' then v.size = v.size - 1 end
    if cs then costAfter(Q, C, v, cs, g, not st, d, est) end
  end
  writeRing(v)
  if tv then writeInner(tv) end
  if #v.waiting > 0 then callSliced('ZADD', K.throttled, v.waiting) end
  if cs then writeCost(cs) end
  if not C.plain then spendTokens(v, C.now) end
  if v.taken == 0 then return 0, cs and cs.more end
  return leaseJobs(Q, C, v, out), cs and cs.more
end
