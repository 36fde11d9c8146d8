--@include ringView
--@include laneView
-- Lane limits that burst (Q.burst; docs/architecture.md, "Lane limits that
-- burst"). A plain lane or a tenant entry with a limit of its own may carry
-- a burst ceiling (hash `gburst`, >= the limit). Below its limit it is in
-- the ring as ever; at or above it, below its burst, it waits in the burst
-- ring `bring` instead (laneState 'burst', lua/includes/lane.lua), which a
-- claim's turns consult only once the ring has nothing: every lane below
-- its limit that is serviceable is served first, so a lane below its limit
-- is never passed over for a bursting one, and the work
-- waiting in bursting lanes still takes capacity nobody else wants. I1
-- holds for both rings: each holds exactly the entries in its state, once.
-- A view of an empty ring, for a call whose ring is empty: the burst ring
-- may have work.
function Life.emptyView(Q, C)
  return { q = {}, h = 1, nq = 0, m = 0, whole = true, lim = {}, wt = C.weighted and {} or nil, act = {},
           tok = {}, rated = {}, depth = {}, servedBy = {}, lanes = {}, ids = {}, laneOf = {}, waiting = {},
           bur = {}, bq = { q = {}, nq = 0 } }
end
-- After the ring's turns (view v; turnsOf: lua/includes/turns.lua). When
-- the call has turns and jobs left and the ring has nothing (its whole
-- view was turned), the burst ring's turns follow, as the claims after this
-- one would serve them: the burst ring's head, then the entries that
-- reached their ceiling in this call's turns (v.bq) at its tail. Its view
-- shares v's tallies; its ceilings are the entries' burst ceilings (v.lim
-- for the rest); an entry at its burst ceiling, or empty, leaves. Else the
-- entries of v.bq join the burst ring's tail. Returns the jobs taken.
function Life.burstTurns(Q, C, v, tv, t, taken, turnsOf)
  local key, bq = P .. 'bring', v.bq
  if taken >= C.n or t >= C.turns or v.h <= v.nq or not v.whole then
    if bq.nq > 0 then callSliced('RPUSH', key, bq.q) end
    return taken
  end
  local len = rcall('LLEN', key)
  local head = len > 0 and rcall('LRANGE', key, 0, math.min(len, C.turns - t) - 1) or {}
  local m = #head
  local b = { q = head, h = 1, nq = m, m = m, whole = m == len, lim = setmetatable({}, { __index = v.lim }),
              wt = v.wt, act = v.act, tok = v.tok, rated = v.rated, depth = v.depth, servedBy = v.servedBy,
              lanes = v.lanes, ids = v.ids, laneOf = v.laneOf, waiting = v.waiting }
  local fresh = {}
  for i = 1, m do if v.lim[head[i]] == nil then fresh[#fresh + 1] = head[i] end end
  for i = 1, bq.nq do b.nq = b.nq + 1; b.q[b.nq] = bq.q[i] end
  if #fresh > 0 then loadLanes(Q, C, b, fresh) end
  local bur = #fresh > 0 and readFields(P .. 'gburst', fresh) or {}
  for i = 1, b.nq do
    local g = b.q[i]
    local x = v.bur[g] or tonumber(bur[g] or '')
    if x then b.lim[g] = x end
  end
  t, taken = turnsOf(Q, C, b, nil, tv, t, taken)
  writeView(key, b)
  return taken
end
