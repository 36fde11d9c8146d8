--@include lane
-- Repair (lua/includes/mend.lua) of a lane or tenant entry against what was
-- found. R: the repair step's state (lua/includes/mend.lua, repairStep):
-- R.apply (false: report only), R.tally (group -> {leased, delayed}),
-- R.out (the reply: one line per change), R.Q (readQueue).
local function say(R, msg) R.out[#R.out + 1] = msg end
-- A write of the repair: made only when it applies.
local function mendWrite(R, ...) if R.apply then rcall(...) end end
-- The counts of g (a lane, or a tenant entry: `what`) set to what was
-- found, and its directory entry to its live jobs and settings.
local function mendCounts(R, what, g, leased, live, liveWhy)
  local act = tonumber(rcall('HGET', K.gactive, g) or '0')
  if act ~= leased then
    local why = act < 0 and ' (a hidden underflow)' or ''
    say(R, 'gactive: ' .. what .. ' ' .. g .. ' ' .. act .. why .. ' -> ' .. leased .. ' (jobs leased)')
    if leased == 0 then mendWrite(R, 'HDEL', K.gactive, g) else mendWrite(R, 'HSET', K.gactive, g, S(leased)) end
  end
  local had = tonumber(rcall('HGET', K.glive, g) or '0')
  if had ~= live then
    say(R, 'glive: ' .. what .. ' ' .. g .. ' ' .. had .. ' -> ' .. live .. ' (' .. liveWhy .. ')')
    if live == 0 then mendWrite(R, 'HDEL', K.glive, g) else mendWrite(R, 'HSET', K.glive, g, S(live)) end
  end
  local listed = rcall('ZSCORE', K.lanes, g) ~= false
  if live > 0 and not listed then
    say(R, 'lanes: ' .. what .. ' ' .. g .. ' listed (' .. live .. ' live jobs, not in the directory)')
    mendWrite(R, 'ZADD', K.lanes, 0, g)
  elseif live == 0 and listed and not hasSetting(g) then
    say(R, 'lanes: ' .. what .. ' ' .. g .. ' dropped (no live job, no setting)')
    if R.apply then forgetIdleLane(g) end
  end
end
-- Entry g (a lane, or a tenant entry) in its ring (`ring`: the outer
-- ring, or its tenant's inner ring) exactly as its state `st` says, or
-- scheduled in throttled; in cost mode an outer entry may sit in gdebt.
local function mendPlace(R, g, st, due, ring, why)
  local n = #rcall('LPOS', ring, g, 'COUNT', 0)
  local waits = rcall('ZSCORE', K.throttled, g) ~= false
  -- An entry in gdebt sits out by design in cost mode (lua/includes/cost.lua);
  -- out of cost mode it goes back (joinRing takes it out of gdebt).
  local sits = ring == K.ring and rcall('ZSCORE', K.gdebt, g) ~= false
  if sits and (n > 0 or not R.Q.cost) then
    say(R, 'gdebt: lane ' .. g .. (n > 0 and ' is in the ring' or ' sits out, but cost mode is off') .. ', no longer sits out')
    mendWrite(R, 'ZREM', K.gdebt, g)
    sits = false
  end
  if ring == K.ring then Life.mendBurst(R, g, st, waits) end  -- lua/includes/mendLife.lua
  if st == 'ring' then
    if n == 0 and not waits and not sits then
      say(R, 'ring: lane ' .. g .. ' added (' .. why .. ', not in the ring)')
      if R.apply then joinRing(R.Q, g) end
    elseif n > 1 then
      say(R, 'ring: lane ' .. g .. ' was in the ring ' .. n .. ' times, now once')
      mendWrite(R, 'LREM', ring, -(n - 1), g)
    end
    if n > 0 and waits then
      say(R, 'throttled: lane ' .. g .. ' is in the ring, no longer scheduled to rejoin')
      mendWrite(R, 'ZREM', K.throttled, g)
    end
  else
    if n > 0 then
      say(R, 'ring: lane ' .. g .. ' removed (' .. why .. ', not serviceable)')
      mendWrite(R, 'LREM', ring, 0, g)
    end
    if st == 'wait' and not waits then
      say(R, 'throttled: lane ' .. g .. ' scheduled to rejoin at ' .. S(due))
      mendWrite(R, 'ZADD', K.throttled, S(due), g)
    end
  end
end
-- Lane g made consistent with its jobs: active and live counts, the
-- directory, its ring entry and its schedule in throttled.
local function mendLane(R, g)
  local t = R.tally[g] or { 0, 0 }
  local leased, delayed = t[1], t[2]
  local depth = rcall('ZCARD', pendingKey(g))
  mendCounts(R, 'lane', g, leased, depth + leased + delayed,
    depth .. ' pending, ' .. leased .. ' leased, ' .. delayed .. ' delayed')
  local st, due = laneState(g, leased)
  local te = tenantOf(g)
  if te then
    -- A lane of a tenant rotates in its tenant's inner ring only.
    if #rcall('LPOS', K.ring, g, 'COUNT', 0) > 0 then
      say(R, 'ring: lane ' .. g .. ' of tenant ' .. te .. ' removed from the outer ring')
      mendWrite(R, 'LREM', K.ring, 0, g)
    end
    if rcall('ZSCORE', K.gdebt, g) then
      say(R, 'gdebt: lane ' .. g .. ' of tenant ' .. te .. ' no longer sits out (its tenant does)')
      mendWrite(R, 'ZREM', K.gdebt, g)
    end
  end
  mendPlace(R, g, st, due, te and innerKey(te) or K.ring, depth .. ' pending')
end
-- Tenant entry te made consistent with its lanes (mended before it): its
-- aggregates gactive[te] and glive[te], its directory entry, its inner
-- ring (only its own serviceable lanes, each once) and its place in the
-- outer ring. Its lanes are the directory's names after te up to T0
-- ('0' follows '/'): every lane with a live job is listed by then. Once
-- per step (R.mendedT). Returns the work it took.
local function mendTenant(R, te)
  if R.mendedT[te] then return 0 end
  R.mendedT[te] = true
  local names = rcall('ZRANGEBYLEX', K.lanes, '(' .. te, '(' .. string.sub(te, 1, -2) .. '0')
  local leased, live = 0, 0
  for _, g in ipairs(names) do
    leased = leased + (tonumber(rcall('HGET', K.gactive, g) or '0') or 0)
    live = live + (tonumber(rcall('HGET', K.glive, g) or '0') or 0)
  end
  mendCounts(R, 'tenant', te, leased, live, 'live jobs in its lanes')
  local key, seen = innerKey(te), {}
  for _, g in ipairs(rcall('LRANGE', key, 0, -1)) do
    local why
    if tenantOf(g) ~= te then why = 'not a lane of ' .. te
    elseif seen[g] then why = 'there twice'
    elseif laneState(g) ~= 'ring' then why = 'not serviceable' end
    if why then
      say(R, 'ring: lane ' .. g .. ' removed from the inner ring of tenant ' .. te .. ' (' .. why .. ')')
      mendWrite(R, 'LREM', key, seen[g] and -1 or 0, g)
    end
    seen[g] = true
  end
  local st, due = laneState(te, leased)
  mendPlace(R, te, st, due, K.ring, 'tenant with ' .. rcall('LLEN', key) .. ' lanes in its ring')
  return #names + 1
end
