--@include lane
-- verify (lua/verify.lua) of the lifecycle's keys (docs/keys.md,
-- "Lifecycle"): each is where its feature says, and its feature is on
-- while it holds anything (a queue whose flag is off never looks at it).
-- The burst ring (I1, its half): each entry once, a plain lane or a tenant
-- entry that is bursting (laneState 'burst'). Returns the entries seen.
function Life.verifyBurstRing(Q, report)
  local seen = {}
  for _, g in ipairs(rcall('LRANGE', P .. 'bring', 0, -1)) do
    if seen[g] then report('I1: ' .. g .. ' is in the burst ring more than once') end
    seen[g] = true
    if tenantOf(g) then
      report('I1: lane ' .. g .. ' of a tenant is in the burst ring (its tenant bursts, not its lanes)')
    elseif laneState(g) ~= 'burst' then
      report('I1: ' .. g .. ' is in the burst ring but not bursting')
    end
  end
  if next(seen) and not Q.burst then report('life: the burst ring holds entries but config life lacks b') end
  return seen
end
-- An outer entry g (a plain lane or a tenant entry) in state st, in the
-- ring or not (ringed), waiting for a token or not (waits), against the
-- burst ring (inBurst: Life.verifyBurstRing).
function Life.verifyBurstPlace(g, st, ringed, waits, inBurst, report)
  if st == 'burst' and not inBurst[g] and not waits then
    report('I1: ' .. g .. ' is bursting but not in the burst ring')
  end
  if inBurst[g] and ringed then report('I1: ' .. g .. ' is in the ring and in the burst ring') end
end
-- I3 of the lifecycle's per-job entries (place: id -> where, from
-- verifyJobs): a cancel mark is of a leased job, a start deadline of a
-- waiting one (its lane or delayed), a drop of a job with a deadline, a
-- time limit of a job that exists; and each key's feature is on.
function Life.verifyJobs(Q, place, report)
  for _, id in ipairs(rcall('HKEYS', P .. 'cancels')) do
    if place[id] ~= 'leases' then report('I3: cancels marks job ' .. id .. ', which is not leased') end
  end
  local deadline = {}
  for _, id in ipairs(rcall('ZRANGE', P .. 'expiry', 0, -1)) do
    deadline[id] = true
    local at = place[id]
    if not at or not (at == 'delayed' or string.sub(at, 1, 5) == 'lane ') then
      report('I3: expiry holds job ' .. id .. ', which is not waiting (' .. (at or 'no job') .. ')')
    end
  end
  for _, id in ipairs(rcall('HKEYS', P .. 'xdrop')) do
    if not deadline[id] then report('I3: xdrop holds job ' .. id .. ', which has no start deadline') end
  end
  for _, id in ipairs(rcall('HKEYS', P .. 'tmo')) do
    if rcall('HEXISTS', K.jobs, id) == 0 then report('I3: tmo holds job ' .. id .. ', which does not exist') end
  end
  local flags = { { 'cancels', 'cancels', 'c' }, { 'expiry', 'expiry', 'x' }, { 'tmo', 'timeouts', 't' },
                  { 'gburst', 'burst', 'b' }, { 'qlimit', 'qlimit', 'g' } }
  for _, f in ipairs(flags) do
    if rcall('EXISTS', P .. f[1]) == 1 and not Q[f[2]] then
      report('life: ' .. f[1] .. ' holds entries but config life lacks ' .. f[3])
    end
  end
  if rcall('HEXISTS', K.config, 'timeout') == 1 and not Q.timeouts then
    report('life: config timeout is set but config life lacks t')
  end
end
