--@include cost
--@include waits
-- Cost estimates (docs/architecture.md, "Fairness by work"): in cost mode
-- enqueue may give jobs an estimate (key `est`: job id -> units). It stands
-- in for the job's cost: charged to its ring entry when a claim's turn
-- takes it, refunded from the real charge when the job settles. A claim
-- reads `est` only when the key exists (C.est: lua/includes/takeGuard.lua),
-- so a queue without estimates pays one EXISTS a claim and nothing more.
-- The weight a charge of ring entry g is divided by: its own, the queue
-- default ('') only for a lane, 1 for a tenant (as chargeLanes).
local function entryWeight(g)
  local w = rcall('HMGET', K.gweight, g, '')
  return tonumber(w[1] or (not isTenant(g) and w[2]) or '') or 1
end
-- The summed estimate of the jobs `ids` (0 when none has one).
local function estimateOf(ids)
  if #ids == 0 then return 0 end
  local e, sum = callSliced('HMGET', K.est, ids), 0
  for i = 1, #ids do sum = sum + (tonumber(e[i] or '') or 0) end
  return sum
end
-- A claim's turn of ring entry g took the jobs `popped` (id, score pairs):
-- those that carry an estimate charge g at once, before the turn's visit
-- counts, as a single claim's write would before the next claim. The
-- entry's new v is written with the turns' (cs.estV: entry -> v; cs.estW:
-- its weight, read at its first charge). Returns the units charged.
local function chargeEstimates(cs, g, popped)
  local ids = {}
  for i = 1, #popped, 2 do ids[#ids + 1] = popped[i] end
  local est = estimateOf(ids)
  if est > 0 then
    if not cs.estW[g] then cs.estW[g] = entryWeight(g) end
    local v = effV(cs, cs.vOf[g]) + est / cs.estW[g]
    cs.vOf[g] = v
    cs.estV[g] = v
  end
  return est
end
-- Settled jobs (`took`: {id, lane, acked, released} each) whose estimate was
-- charged at their claim: a lane the call charges (lanes, costs: the take
-- call's charges) gets their estimates back as negative costs, so the real
-- cost replaces the estimate; a release (the job never ran) always gets it
-- back. Otherwise it stays charged: it stood in, no real cost came. An
-- acked job's estimate goes with its record; a failed one keeps it (each
-- attempt is charged it at its claim). Returns the charges with the
-- refunds after them (new lists: the call's own are not written).
local function refundEstimates(took, lanes, costs)
  if #took == 0 then return lanes, costs end
  local charged, ids, outL, outC = {}, {}, {}, {}
  for i, g in ipairs(lanes) do charged[g] = true; outL[i] = g; outC[i] = costs[i] end
  for k, t in ipairs(took) do ids[k] = t[1] end
  local est = callSliced('HMGET', K.est, ids)
  local gone = {}
  for k, t in ipairs(took) do
    local e = tonumber(est[k] or '')
    if e and (charged[t[2]] or t[4]) then outL[#outL + 1] = t[2]; outC[#outC + 1] = -e end
    if e and t[3] then gone[#gone + 1] = t[1] end
  end
  if #gone > 0 then callSliced('HDEL', K.est, gone) end
  return outL, outC
end
-- A take call's charges in cost mode (C.charges: lane, cost), after its
-- settlements: the estimates of the jobs settled are refunded (above), the
-- lanes charged (lua/includes/cost.lua), and with wait figures on the
-- charges counted in the window (lua/includes/waits.lua).
local function settleCosts(Q, C, now)
  local lanes, costs = C.charges.lane, C.charges.cost
  if C.took then lanes, costs = refundEstimates(C.took, lanes, costs) end
  chargeLanes(Q, lanes, costs)
  if Q.waits then recordCosts(Q, lanes, costs, now) end
end
