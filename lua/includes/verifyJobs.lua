--@include lane
--@include record
--@include counts
--@include typeGuard
--@include attcheck
-- The checks of lua/verify.lua, each a function of `report` (adds one line
-- per violation). This file: the keys' types, and where the jobs are (I3),
-- leased (I2) and counted.
-- Every key holds its type: the fixed keys, the lanes' pending sets and the
-- tenants' inner rings (a key clobbered with another type is reported by
-- name, alone: the other checks read every key as its own type). Returns
-- the inner rings found, by tenant entry.
local function verifyTypes(report)
  local function checkType(key, want)
    local got = rcall('TYPE', key)['ok']
    if got ~= 'none' and got ~= want then report('type: ' .. key .. ' holds a ' .. got .. ', not a ' .. want) end
  end
  for name, key in pairs(K) do checkType(key, KEY_TYPES[name]) end
  for _, name in ipairs(Life.KEYS) do checkType(P .. name, KEY_TYPES[name]) end
  local inner = {}
  for _, pattern in ipairs({ 'g:*:pending', 't:*:ring' }) do
    local cursor = '0'
    repeat
      local r = rcall('SCAN', cursor, 'MATCH', globEscape(P) .. pattern, 'COUNT', 1000)
      cursor = r[1]
      for _, k in ipairs(r[2]) do
        if pattern == 't:*:ring' then
          checkType(k, 'list')
          inner[string.sub(k, #P + 3, #k - 5) .. '/'] = k  -- lua/includes/base.lua, innerKey
        else
          checkType(k, 'zset')
        end
      end
    until cursor == '0'
  end
  return inner
end
-- I3: each live job id in exactly one place, each place holding existing
-- jobs only. Returns what was seen: place (id -> where), lanes (the lanes
-- with pending jobs), pending (their jobs), live (lane or tenant -> live
-- jobs), leased (lane or tenant -> leased jobs).
local function verifyJobs(report)
  local seen = { place = {}, lanes = {}, pending = 0, live = {}, leased = {} }
  local place, live = seen.place, seen.live
  local function put(id, where, g)
    if place[id] then report('I3: job ' .. id .. ' is in ' .. place[id] .. ' and in ' .. where) else place[id] = where end
    local rec = rcall('HGET', K.jobs, id)
    if not rec then report('I3: ' .. where .. ' holds job ' .. id .. ' whose record is missing'); return nil end
    local jg = unpackRecord(rec)
    if g and jg ~= g then report('I3: job ' .. id .. ' of lane ' .. jg .. ' sits in lane ' .. g) end
    if where ~= 'dead' then
      live[jg] = (live[jg] or 0) + 1
      local te = tenantOf(jg)
      if te then live[te] = (live[te] or 0) + 1 end
    end
    return jg
  end
  local cursor = '0'
  repeat
    local r = rcall('SCAN', cursor, 'MATCH', globEscape(P) .. 'g:*:pending', 'COUNT', 1000)
    cursor = r[1]
    for _, k in ipairs(r[2]) do
      local g = string.sub(k, #P + 3, #k - 8)
      seen.lanes[g] = true
      for _, id in ipairs(rcall('ZRANGE', k, 0, -1)) do put(id, 'lane ' .. g, g); seen.pending = seen.pending + 1 end
    end
  until cursor == '0'
  for _, id in ipairs(rcall('ZRANGE', K.leases, 0, -1)) do
    local g = id ~= ZSET_MARK and put(id, 'leases', nil)
    if g then
      seen.leased[g] = (seen.leased[g] or 0) + 1
      local te = tenantOf(g)
      if te then seen.leased[te] = (seen.leased[te] or 0) + 1 end
    end
  end
  for _, id in ipairs(rcall('ZRANGE', K.delayed, 0, -1)) do if id ~= ZSET_MARK then put(id, 'delayed', nil) end end
  for _, id in ipairs(rcall('ZRANGE', K.dead, 0, -1)) do put(id, 'dead', nil) end
  for _, id in ipairs(rcall('ZRANGE', K.parents, 0, -1)) do put(id, 'parents', nil) end  -- a flow's
  for _, id in ipairs(rcall('HKEYS', K.jobs)) do
    if not place[id] then report('I3: job ' .. id .. ' is in no place (orphaned)') end
  end
  return seen
end
-- I3 of the delivery states: each of a job, naming its job's lane.
local function verifyAtt(report)
  local av = rcall('HGETALL', K.att)
  for i = 1, #av, 2 do
    local id = av[i]
    local problem, g, ag = attProblem(id, av[i + 1])
    if problem == 'orphan' then report('I3: att holds job ' .. id .. ' that does not exist')
    elseif problem == 'lane' then report('att: job ' .. id .. ' names lane ' .. tostring(ag) .. ', its record ' .. g) end
  end
end
-- The fields of counter hash `key`, but the mark: field -> number.
local function countsOf(key)
  local all, of = rcall('HGETALL', key), {}
  for i = 1, #all, 2 do if all[i] ~= COUNTERS_MARK then of[all[i]] = tonumber(all[i + 1]) end end
  return of
end
-- I2: gactive[g] = the leased jobs of g (seen: verifyJobs).
local function verifyActive(seen, report)
  local actOf, leased = countsOf(K.gactive), seen.leased
  for g, n in pairs(actOf) do
    if n ~= (leased[g] or 0) then
      report('I2: gactive[' .. g .. '] = ' .. n .. ' but ' .. (leased[g] or 0) .. ' jobs are leased')
    end
  end
  for g, n in pairs(leased) do
    if not actOf[g] then report('I2: lane ' .. g .. ' has ' .. n .. ' leased jobs but no gactive entry') end
  end
end
-- The counters and the lane directory: the pending counter, glive per lane
-- or tenant, every lane with live jobs listed.
local function verifyCounters(seen, report)
  local pc = pendingCount()
  if pc ~= seen.pending then
    report('counter: the counters give ' .. pc .. ' pending jobs but ' .. seen.pending .. ' are pending')
  end
  local liveOf, live = countsOf(K.glive), seen.live
  for g, n in pairs(live) do
    if (liveOf[g] or 0) ~= n then report('counter: glive[' .. g .. '] = ' .. (liveOf[g] or 0) .. ' but lane has ' .. n .. ' live jobs') end
    if not rcall('ZSCORE', K.lanes, g) then report('directory: lane ' .. g .. ' has live jobs but is not listed') end
  end
  for g, n in pairs(liveOf) do
    if not live[g] and n ~= 0 then report('counter: glive[' .. g .. '] = ' .. n .. ' but lane has no live job') end
  end
end
