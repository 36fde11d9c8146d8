--@include lane
--@include many
-- Cost mode (docs/architecture.md, "Fairness by work"): a turn counts work,
-- not jobs. Q.cost (the quantum, from config field `cost`; nil = off, and
-- then nothing here runs) is read by readQueue (lua/includes/base.lua).
-- Here: the floor, the lanes in debt and the charges; a claim's turns set
-- lanes aside in lua/includes/costTurns.lua, and estimates stand in for
-- costs in lua/includes/estimate.lua.
-- gvt: lane -> v, the cost it was charged divided by its weight (a float);
-- field '' (never a group name) = "V vmin left": V is the floor, the
-- smallest v among the lanes the ring served in its last full rotation;
-- vmin and left track the rotation under way (left = visits to its end).
-- A lane visited with v > V + Q sits out in gdebt (scored by v) until V + Q
-- reaches it. A lane without a v (new, or back after running empty) is
-- charged from V: it starts level, with no banked credit.
-- Lanes over their share that one turn may set aside before it serves a
-- lane; past that the call ends early and says "more due now" (nextDue 0).
local COST_SKIP = 16
local function fmtV(v) return string.format('%.17g', v) end
-- The floor and the rotation under way (cs: V, vmin, left, and q the
-- quantum); ringLen starts a new rotation.
local function costFloor(Q, ringLen)
  local s = rcall('HGET', K.gvt, '')
  local V, vmin, left = 0, math.huge, 0
  if s then
    local a, b, c = string.match(s, '^(%S+) (%S+) (%S+)$')
    V, vmin, left = tonumber(a) or 0, tonumber(b) or math.huge, tonumber(c) or 0
  end
  if left <= 0 then left, vmin = ringLen, math.huge end
  return { V = V, vmin = vmin, left = left, q = Q.cost }
end
local function saveFloor(cs)
  local vm = cs.vmin == math.huge and '-' or fmtV(cs.vmin)
  rcall('HSET', K.gvt, '', fmtV(cs.V) .. ' ' .. vm .. ' ' .. S(cs.left))
end
-- The v a lane counts with: its own, lifted to V - Q (a lane back from a
-- pause or a ceiling banks at most one quantum), V when it has none.
local function effV(cs, v)
  local x = tonumber(v or '')
  if not x then return cs.V end
  return math.max(x, cs.V - cs.q)
end
-- One visit of the ring in the rotation under way: v of a served lane (nil
-- for one set aside), `size` the ring's length after the visit. At the end
-- of a rotation V rises to the least v it served.
-- Returns whether V rose.
local function costVisit(cs, v, size)
  if v and v < cs.vmin then cs.vmin = v end
  cs.left = cs.left - 1
  if cs.left > 0 then return false end
  local rose = cs.vmin < math.huge and cs.vmin > cs.V
  if rose then cs.V = cs.vmin end
  cs.vmin, cs.left = math.huge, size
  return rose
end
-- The lanes in gdebt that may come back now (v <= V + Q), RECOVER_MAX at
-- most. `empty` (no lane in the ring): V first rises to let the cheapest
-- lane in debt back, so work is never left undone while only lanes in debt
-- have it.
local function debtReturning(cs, empty)
  local limit = cs.V + cs.q
  if empty then
    local h = rcall('ZRANGE', K.gdebt, 0, 0, 'WITHSCORES')
    if h[2] and tonumber(h[2]) > limit then
      cs.V = tonumber(h[2]) - cs.q
      limit = tonumber(h[2])
      cs.lifted = true
    end
  end
  return rcall('ZRANGEBYSCORE', K.gdebt, '-inf', fmtV(limit), 'LIMIT', 0, RECOVER_MAX)
end
-- Read before a take call's first write (lua/take.lua); the turns of the
-- call bring back the lanes that their own rotations make due, at the same
-- points as so many calls would (lua/includes/costTurns.lua).
local function debtDue(Q)
  local cs = costFloor(Q, 0)
  cs.back = debtReturning(cs, rcall('LLEN', K.ring) == 0)
  return cs
end
-- The lanes of debtDue come back: to the ring if serviceable (or to
-- `throttled` to wait for a token); a lane paused or emptied meanwhile
-- stays out until its own change puts it back (fixRing).
local function rejoinDebt(Q, cs)
  if cs.lifted then saveFloor(cs) end
  for _, g in ipairs(cs.back) do
    if rcall('ZREM', K.gdebt, g) == 1 then placeLane(Q, g) end
  end
end
-- Charges: lanes[i] is charged costs[i] units (validated integers), divided
-- by its weight; a lane in gdebt keeps its place there by its new v. The
-- ring's entries are charged: a lane of a tenant charges its tenant (`T/`,
-- by the tenant's weight), whose lanes share its turns by count.
local function chargeLanes(Q, lanes, costs)
  if #lanes == 0 then return end
  local cs = costFloor(Q, 0)
  local entries, q = {}, {}
  for i = 1, #lanes do entries[i] = Q.tenants and tenantOf(lanes[i]) or lanes[i]; q[i] = entries[i] end
  q[#q + 1] = ''
  local w = readFields(K.gweight, q)
  local cur = readFields(K.gvt, entries)
  local set, debt = {}, {}
  local acc = {}
  for i = 1, #entries do
    local g = entries[i]
    local v = acc[g] or effV(cs, cur[g])
    v = v + costs[i] / (tonumber(w[g] or (not isTenant(g) and w['']) or '') or 1)
    acc[g] = v
  end
  for g, v in pairs(acc) do
    set[#set + 1] = g; set[#set + 1] = fmtV(v)
    debt[#debt + 1] = fmtV(v); debt[#debt + 1] = g
  end
  callSliced('HSET', K.gvt, set)
  if rcall('EXISTS', K.gdebt) == 1 then callSliced('ZADD', K.gdebt, debt, { 'XX' }) end
end
