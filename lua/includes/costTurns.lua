--@include cost
--@include laneView
-- A claim's turns in cost mode (lua/includes/cost.lua): a lane over its
-- share (v > V + Q) leaves the ring at its turn and sits out in gdebt,
-- spending no turn; every visit counts towards the rotation under way, and
-- a rotation that lifts V lets lanes in debt back at the tail, where the
-- next call's start would put them. The view of the ring is wider by
-- COST_SKIP such lanes (lua/includes/ringView.lua); a call that sets aside
-- more than the view holds, or COST_SKIP in one turn, ends there and says
-- "more due now" (cs.more).
-- The turns' cost state: the floor (costFloor), vOf (entry -> v as stored:
-- lifted where used, by the V of that moment), size (the ring's length as
-- the turns change it: len to start), the entries to forget, and with
-- estimates (C.est) their charges (lua/includes/estimate.lua).
local function costView(Q, C, v, len)
  local cs = costFloor(Q, len)
  cs.vOf = readFields(K.gvt, v.q)
  cs.size = len
  cs.forget = {}
  if C.est then cs.estV, cs.estW = {}, {} end
  return cs
end
-- Lanes in gdebt that a risen V (or an emptied ring: `empty`) lets back
-- join the tail of the view, their settings read as the head's were.
-- Returns how many joined.
local function readmit(Q, C, v, cs, empty)
  local back = debtReturning(cs, empty)
  cs.lifted = nil
  local came = {}
  for _, g in ipairs(back) do
    rcall('ZREM', K.gdebt, g)
    local st, due = laneState(g)
    if st == 'ring' then
      v.nq, cs.size = v.nq + 1, cs.size + 1
      v.q[v.nq] = g
      came[#came + 1] = g
      cs.vOf[g] = rcall('HGET', K.gvt, g)
    elseif st == 'wait' then
      rcall('ZADD', K.throttled, S(due), g)
    elseif st == 'burst' then
      Life.joinBurst(g)
    end
  end
  if #came > 0 and (C.weighted or not C.plain) then loadLanes(Q, C, v, came) end
  return #came
end
-- Before a turn: the lanes at the head over their share sit out (off the
-- ring, scored by v in gdebt now: a rotation ending in this call may let
-- them back). Returns true when the turns end here.
local function setAside(Q, C, v, cs)
  local q, vOf, limit, sk = v.q, cs.vOf, cs.V + cs.q, 0
  while v.h <= v.nq and effV(cs, vOf[q[v.h]]) > limit and sk < COST_SKIP do
    local g = q[v.h]
    rcall('ZADD', K.gdebt, fmtV(effV(cs, vOf[g])), g)
    v.h, cs.size, sk = v.h + 1, cs.size - 1, sk + 1
    if costVisit(cs, nil, cs.size) then readmit(Q, C, v, cs, false) end
    limit = cs.V + cs.q
  end
  if v.h > v.nq and (not v.whole or readmit(Q, C, v, cs, true) == 0) then return true end
  -- Past the view (lanes set aside took its room): the rest of the ring is
  -- unread, so the next call goes on from there.
  if not v.whole and v.h > v.m then cs.more = true; return true end
  if sk == COST_SKIP and effV(cs, vOf[q[v.h]]) > cs.V + cs.q then cs.more = true; return true end
  return false
end
-- After entry g's turn (st: where it went, lua/includes/laneTurn.lua): one
-- visit of the rotation. An entry that left empty (d == 0) starts level
-- when it comes back: its v goes, unless the turn charged it an estimate
-- (est > 0), which stays charged until its job settles.
local function costAfter(Q, C, v, cs, g, st, d, est)
  if st ~= 'ring' then cs.size = cs.size - 1 end
  if not st and d == 0 and est == 0 then
    cs.forget[#cs.forget + 1] = g
    if cs.estV then cs.estV[g] = nil end
  end
  if costVisit(cs, effV(cs, cs.vOf[g]), cs.size) then readmit(Q, C, v, cs, false) end
end
-- After the turns: the floor, the entries forgotten, the estimates charged.
local function writeCost(cs)
  saveFloor(cs)
  if #cs.forget > 0 then callSliced('HDEL', K.gvt, cs.forget) end
  if cs.estV then
    local set = {}
    for g, x in pairs(cs.estV) do set[#set + 1] = g; set[#set + 1] = fmtV(x) end
    if #set > 0 then callSliced('HSET', K.gvt, set) end
  end
end
