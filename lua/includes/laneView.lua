--@include many
--@include lane
-- A lane's ceiling (limit) and its token bucket (rate) on the claim path:
-- read for the turns (loadLanes), applied after each turn (requeue: at its
-- ceiling a lane leaves the ring, out of tokens it waits in `throttled`),
-- the tokens spent written back (spendTokens). Weighted turns read them
-- too (lua/includes/turnSize.lua).
-- The settings of the lanes a claim's turns reach, read into the ring view
-- v (lua/includes/ringView.lua) before the first write: for the lanes
-- `names`, their ceilings (v.lim, false = none) with the active counts of
-- the lanes under one (v.act: only those, the turns count them; 0 when
-- the count is absent), their weights when the call is weighted
-- (v.wt: wclaim reads them, a plain claim turn serves one job whatever the
-- weight), and their token buckets (v.tok: tokens now; v.rated: the rate,
-- false for a hand-set throttle alone). C.plain (no limit, rate or throttle
-- anywhere, nor a default: takeReads) reads no rate. A function of the
-- library, not a closure made per call.
-- (Numeric loops here and per job: lua/includes/base.lua, "Loops".)
local function loadLanes(Q, C, v, names)
  local l1, w1 = laneSettings(Q, names, C.weighted)
  local lim, wt, act, limited = v.lim, v.wt, v.act, {}
  for i = 1, #names do
    local g = names[i]
    lim[g] = l1[g]
    if wt then wt[g] = w1[g] end
    if l1[g] then limited[#limited + 1] = g end
  end
  -- Active counts matter only under a ceiling: read them for those lanes.
  if #limited > 0 then
    local cur = readFields(K.gactive, limited)
    for i = 1, #limited do local g = limited[i]; act[g] = tonumber(cur[g] or '') or 0 end
    -- Their burst ceilings, when any lane has one (lua/includes/burstRing.lua).
    if v.bur then
      local b = readFields(P .. 'gburst', limited)
      for i = 1, #limited do local g = limited[i]; if b[g] then v.bur[g] = tonumber(b[g]) end end
    end
  end
  if C.plain then return end
  -- Token buckets, for the lanes with a rate limit (or a hand-set throttle).
  local q = {}
  for i, g in ipairs(names) do q[i] = g end
  q[#q + 1] = ''
  local rates, buckets = readFields(K.grate, q), readFields(K.gbucket, names)
  local dr, now = rates[''], C.now
  for _, g in ipairs(names) do
    local r = parseRate(rates[g] or (not (Q.tenants and isTenant(g)) and dr) or nil)
    if r or buckets[g] then
      local _, tk = rateState(r, buckets[g] or nil, now)
      v.tok[g] = tk
      v.rated[g] = r or false
    end
  end
end
-- Where entry g goes after its turn, in ring view r (the ring's, or a
-- tenant's inner ring's: lua/includes/tenantTurn.lua): with work left (d >
-- 0) and below its ceiling (l; a its active count) it goes back to r's
-- tail, or, out of tokens (tk < 1), out of the ring until its next token is
-- due at `now`, reckoned from the bucket as stored (as every later check
-- reads it). Empty or at its ceiling, it leaves; at its ceiling but below
-- its burst ceiling (v.bur) it goes to the burst ring's tail (v.bq:
-- lua/includes/burstRing.lua). Returns 'ring', 'burst', 'wait' or nil (left).
local function requeue(v, r, g, d, a, l, tk, now)
  if d <= 0 then return nil end
  local into, st = r, 'ring'
  if l and a >= l then
    local b = v.bur and v.bur[g]
    if not b or a >= b then return nil end
    into, st = v.bq, 'burst'
  end
  if tk and tk < 1 then
    local _, _, due = rateState(v.rated[g], packBucket(tk, now), now)
    local w = v.waiting
    w[#w + 1] = S(due)
    w[#w + 1] = g
    return 'wait'
  end
  local nq = into.nq + 1
  into.nq = nq
  into.q[nq] = g
  return st
end
-- After the turns: the tokens the served entries spent go back to their
-- buckets (one HSET), reckoned at the call's time.
local function spendTokens(v, now)
  local spent, tok, rated, lanes = {}, v.tok, v.rated, v.lanes
  for i = 1, #lanes do
    local g = lanes[i]
    if tok[g] and rated[g] then spent[#spent + 1] = g; spent[#spent + 1] = packBucket(tok[g], now) end
  end
  if #spent > 0 then callSliced('HSET', K.gbucket, spent) end
end
