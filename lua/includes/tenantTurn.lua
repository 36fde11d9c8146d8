--@include ringView
--@include laneTurn
-- A tenant's turn (docs/architecture.md, "Lanes inside tenants"): the turn
-- of tenant entry `T/` in the ring serves the head lane of T's inner ring;
-- the lane's own ceiling and tokens hold, and the tenant's on top. Only
-- while Q.tenants is on (lua/includes/base.lua): a queue without tenants
-- never comes here.
-- Tenant te's inner ring as the turns see it (tv: the call's views, {views
-- = te -> view or false, viewed = the views in order}): a copy of its head,
-- read at its first turn, written back as the ring's is (writeView). A
-- tenant is turned at most `turns` times, each time taking one lane off the
-- head. Not a list (a corrupted key) = empty: it leaves.
local function innerView(tv, te, turns)
  local iv = tv.views[te]
  if iv ~= nil then return iv or nil end
  local ikey = innerKey(te)
  local ilen = rpcall('LLEN', ikey)
  if type(ilen) ~= 'number' or ilen == 0 then tv.views[te] = false; return nil end
  local q = rcall('LRANGE', ikey, 0, math.min(ilen, turns) - 1)
  iv = { key = ikey, q = q, h = 1, nq = #q, m = #q, len = ilen, whole = #q == ilen }
  tv.views[te] = iv
  tv.viewed[#tv.viewed + 1] = iv
  return iv
end
-- The lane tenant te's turn serves (nil: its inner ring is empty) and the
-- view of its inner ring; the lane's settings are read at its first turn.
local function tenantLane(Q, C, v, tv, te)
  local iv = innerView(tv, te, C.turns)
  local L = iv and iv.q[iv.h] or nil
  if L and v.lim[L] == nil and (C.weighted or not C.plain) then loadLanes(Q, C, v, { L }) end
  return L, iv
end
-- After the turn of its lane (which took its place in the inner ring as a
-- plain lane does in the ring: lua/includes/laneTurn.lua), tenant te counts
-- the turn's `got` jobs, and its entry goes where requeue says: it stays
-- while its inner ring has a lane (those of the copy not yet turned, and
-- past the copy the unread rest of its inner ring). Returns where it went
-- and the lanes it has left.
local function tenantAfter(v, iv, te, got, now)
  iv.h = iv.h + 1
  local a, l, tk = 0, v.lim[te], v.tok[te]
  if l then a = v.act[te] + got; v.act[te] = a end
  served(v, te, got)
  if tk then tk = tk - got; v.tok[te] = tk end
  local d = iv.nq - iv.h + 1 + (iv.whole and 0 or iv.len - iv.m)
  return requeue(v, v, te, d, a, l, tk, now), d
end
-- The inner rings after the turns, as the ring (lua/includes/ringView.lua).
local function writeInner(tv)
  for _, iv in ipairs(tv.viewed) do writeView(iv.key, iv) end
end
