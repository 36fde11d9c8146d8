--@include lane
--@include verifyLife
-- I1 for lua/verify.lua: the ring holds every serviceable entry exactly
-- once and nothing else; with tenants, both rings (the outer ring its
-- serviceable plain lanes and tenant entries, each tenant's inner ring its
-- serviceable lanes). A lane that waits for a token is in `throttled`; one
-- whose token fell due since (or falls due within the millisecond the
-- scores round to) is serviceable and rejoins at the next claim: not a
-- violation. In cost mode a lane over its share sits out in gdebt
-- (lua/includes/cost.lua).
-- The entries of a ring (key), each checked once and serviceable; `what`
-- says which ring. Returns the entries seen (entry -> true).
local function ringEntries(key, what, report)
  local seen = {}
  for _, g in ipairs(rcall('LRANGE', key, 0, -1)) do
    if seen[g] then report('I1: lane ' .. g .. ' is in ' .. what .. ' more than once') end
    seen[g] = true
    if not serviceable(g) then report('I1: lane ' .. g .. ' is in ' .. what .. ' but not serviceable') end
  end
  return seen
end
-- Entry g (st its state) where its state says: in its ring (`ringed`), or
-- waiting for a token in throttled, or (cost mode, outer entries) sitting
-- out in gdebt.
local function placeOf(Q, g, ringed, ringName, outer, report, inBurst)
  local st = laneState(g)
  local waits = rcall('ZSCORE', K.throttled, g)
  if outer then Life.verifyBurstPlace(g, st, ringed, waits, inBurst, report) end
  local sits = outer and rcall('ZSCORE', K.gdebt, g)
  if sits and not Q.cost then report('I1: lane ' .. g .. ' sits out in gdebt but the queue is not in cost mode') end
  if sits and ringed then report('I1: lane ' .. g .. ' is in the ring and in gdebt') end
  if st == 'ring' and not ringed and not waits and not sits then
    report('I1: lane ' .. g .. ' is serviceable but not in ' .. ringName)
  elseif st == 'wait' and not waits then
    report('I1: lane ' .. g .. ' waits for a token but is not scheduled to rejoin')
  end
  if waits and ringed then report('I1: lane ' .. g .. ' is in ' .. ringName .. ' and in throttled') end
end
-- seen: what verifyJobs saw (seen.lanes: the lanes with pending jobs);
-- inner: the tenants' inner rings found (tenant entry -> key).
local function verifyRings(Q, seen, inner, report)
  local inRing = ringEntries(K.ring, 'the ring', report)
  local inBurst = Life.verifyBurstRing(Q, report)  -- lua/includes/verifyLife.lua
  -- Each tenant's inner ring: its own serviceable lanes, each once; and the
  -- tenants of the lanes seen, with those of an inner ring, are checked as
  -- the outer ring's entries.
  local inInner, entries = {}, {}
  for g in pairs(inBurst) do if not tenantOf(g) then entries[g] = true end end
  for te, k in pairs(inner) do
    if not isTenant(te) then report('I1: ' .. k .. ' is the inner ring of no tenant') end
    for g in pairs(ringEntries(k, 'its tenant\'s ring', report)) do
      if tenantOf(g) ~= te then report('I1: lane ' .. g .. ' is in the inner ring of tenant ' .. te .. ', not its own') end
      inInner[g] = true
    end
    if isTenant(te) then entries[te] = true end
  end
  for g in pairs(inRing) do if isTenant(g) then entries[g] = true end end
  for g in pairs(seen.lanes) do
    local te = tenantOf(g)
    entries[te or g] = true
    if te then
      if inRing[g] then report('I1: lane ' .. g .. ' of a tenant is in the outer ring') end
      if rcall('ZSCORE', K.gdebt, g) then report('I1: lane ' .. g .. ' of a tenant sits in gdebt (its tenant does)') end
      placeOf(Q, g, inInner[g], 'its tenant\'s ring', false, report)
    end
  end
  for g in pairs(entries) do placeOf(Q, g, inRing[g], 'the ring', true, report, inBurst) end
end
