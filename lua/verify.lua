#!lua flags=no-writes
--[[ verify: check the invariants of DESIGN.md and the counters (read-only).
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gdebt done doneexp donecnt fin started keep waiters progress
-- ARGV[1] key prefix "emq:{q}:"
-- Returns {OK, violation...}: one line per violation, none when healthy.
--   I1 the ring holds every serviceable lane exactly once and nothing else;
--      with tenants, both rings: the outer ring its serviceable plain lanes
--      and tenant entries, each tenant's inner ring its serviceable lanes;
--   I2 gactive[g] = leased jobs of g (so never negative);
--   I3 every live job id is in exactly one place (a lane, leases, delayed,
--      dead, or finished: a retained completed job), each place holds only
--      existing jobs, no record, attempt count or outcome is orphaned, and
--      a delivery state names its job's lane;
--   and: the pending counter, glive per lane, lanes listed in the directory,
--   the schedules (lua/includes/schedCheck.lua);
--   first of all, that every key holds its type (else only those lines).
-- O(jobs + lanes): an operator's and a test's call, not a hot path.
]]
--@include lane
--@include record
--@include counts
--@include typeGuard
--@include attcheck
--@include outcomeCheck
--@include schedCheck

local bad = layoutError()
if bad then return bad end
local out = { OK }
local function report(msg) out[#out + 1] = msg end

-- A key clobbered with another type: reported by name, alone (the checks
-- below read every key as its own type).
local function checkType(key, want)
  local got = rcall('TYPE', key)['ok']
  if got ~= 'none' and got ~= want then report('type: ' .. key .. ' holds a ' .. got .. ', not a ' .. want) end
end
for name, key in pairs(K) do checkType(key, KEY_TYPES[name]) end
local cursor = '0'
repeat
  local r = rcall('SCAN', cursor, 'MATCH', globEscape(P) .. 'g:*:pending', 'COUNT', 1000)
  cursor = r[1]
  for _, k in ipairs(r[2]) do checkType(k, 'zset') end
until cursor == '0'
-- Tenants' inner rings (lua/includes/base.lua, innerKey), by tenant entry.
local inner = {}
cursor = '0'
repeat
  local r = rcall('SCAN', cursor, 'MATCH', globEscape(P) .. 't:*:ring', 'COUNT', 1000)
  cursor = r[1]
  for _, k in ipairs(r[2]) do
    checkType(k, 'list')
    inner[string.sub(k, #P + 3, #k - 5) .. '/'] = k
  end
until cursor == '0'
if #out > 1 then return out end

-- Where each job id lives, and the lanes that hold pending jobs.
local place, lanesSeen, pendingTotal, live = {}, {}, 0, {}
local function put(id, where, g)
  if place[id] then
    report('I3: job ' .. id .. ' is in ' .. place[id] .. ' and in ' .. where)
  else
    place[id] = where
  end
  local rec = rcall('HGET', K.jobs, id)
  if not rec then
    report('I3: ' .. where .. ' holds job ' .. id .. ' whose record is missing')
    return nil
  end
  local jg = unpackRecord(rec)
  if g and jg ~= g then report('I3: job ' .. id .. ' of lane ' .. jg .. ' sits in lane ' .. g) end
  if where ~= 'dead' then
    live[jg] = (live[jg] or 0) + 1
    local te = tenantOf(jg)
    if te then live[te] = (live[te] or 0) + 1 end
  end
  return jg
end

cursor = '0'
repeat
  local r = rcall('SCAN', cursor, 'MATCH', globEscape(P) .. 'g:*:pending', 'COUNT', 1000)
  cursor = r[1]
  for _, k in ipairs(r[2]) do
    local g = string.sub(k, #P + 3, #k - 8)
    lanesSeen[g] = true
    for _, id in ipairs(rcall('ZRANGE', k, 0, -1)) do
      put(id, 'lane ' .. g, g)
      pendingTotal = pendingTotal + 1
    end
  end
until cursor == '0'
local leasedBy = {}
for _, id in ipairs(rcall('ZRANGE', K.leases, 0, -1)) do
  if id ~= ZSET_MARK then
    local g = put(id, 'leases', nil)
    if g then
      leasedBy[g] = (leasedBy[g] or 0) + 1
      local te = tenantOf(g)
      if te then leasedBy[te] = (leasedBy[te] or 0) + 1 end
    end
  end
end
for _, id in ipairs(rcall('ZRANGE', K.delayed, 0, -1)) do if id ~= ZSET_MARK then put(id, 'delayed', nil) end end
for _, id in ipairs(rcall('ZRANGE', K.dead, 0, -1)) do put(id, 'dead', nil) end
for _, id in ipairs(rcall('HKEYS', K.jobs)) do
  if not place[id] then report('I3: job ' .. id .. ' is in no place (orphaned)') end
end
verifyOutcomes(place, report)
local av = rcall('HGETALL', K.att)
for i = 1, #av, 2 do
  local id = av[i]
  local problem, g, ag = attProblem(id, av[i + 1])
  if problem == 'orphan' then report('I3: att holds job ' .. id .. ' that does not exist')
  elseif problem == 'lane' then report('att: job ' .. id .. ' names lane ' .. tostring(ag) .. ', its record ' .. g) end
end

-- I2
local act = rcall('HGETALL', K.gactive)
local actOf = {}
for i = 1, #act, 2 do if act[i] ~= COUNTERS_MARK then actOf[act[i]] = tonumber(act[i + 1]) end end
for g, n in pairs(actOf) do
  if n ~= (leasedBy[g] or 0) then
    report('I2: gactive[' .. g .. '] = ' .. n .. ' but ' .. (leasedBy[g] or 0) .. ' jobs are leased')
  end
end
for g, n in pairs(leasedBy) do
  if not actOf[g] then report('I2: lane ' .. g .. ' has ' .. n .. ' leased jobs but no gactive entry') end
end

-- I1
-- A lane that waits for a token is in `throttled`; one whose token fell
-- due since (or falls due within the millisecond the scores round to) is
-- serviceable and rejoins at the next claim: not a violation.
local inRing = {}
for _, g in ipairs(rcall('LRANGE', K.ring, 0, -1)) do
  if inRing[g] then report('I1: lane ' .. g .. ' is in the ring more than once') end
  inRing[g] = true
  if not serviceable(g) then report('I1: lane ' .. g .. ' is in the ring but not serviceable') end
end
-- Each tenant's inner ring: its own serviceable lanes, each once; and the
-- tenants of the lanes seen, with those of an inner ring, are checked as
-- the outer ring's entries.
local inInner = {}
for te, k in pairs(inner) do
  if not isTenant(te) then report('I1: ' .. k .. ' is the inner ring of no tenant') end
  for _, g in ipairs(rcall('LRANGE', k, 0, -1)) do
    if tenantOf(g) ~= te then report('I1: lane ' .. g .. ' is in the inner ring of tenant ' .. te .. ', not its own') end
    if inInner[g] then report('I1: lane ' .. g .. ' is in its tenant\'s ring more than once') end
    inInner[g] = true
    if not serviceable(g) then report('I1: lane ' .. g .. ' is in its tenant\'s ring but not serviceable') end
  end
end
local entries = {}
for g in pairs(lanesSeen) do
  local te = tenantOf(g)
  if te then entries[te] = true else entries[g] = true end
end
for te in pairs(inner) do if isTenant(te) then entries[te] = true end end
for g in pairs(inRing) do if isTenant(g) then entries[g] = true end end
for g in pairs(lanesSeen) do
  if tenantOf(g) then
    local st = laneState(g)
    local waits = rcall('ZSCORE', K.throttled, g)
    if inRing[g] then report('I1: lane ' .. g .. ' of a tenant is in the outer ring') end
    if rcall('ZSCORE', K.gdebt, g) then report('I1: lane ' .. g .. ' of a tenant sits in gdebt (its tenant does)') end
    if st == 'ring' and not inInner[g] and not waits then
      report('I1: lane ' .. g .. ' is serviceable but not in its tenant\'s ring')
    elseif st == 'wait' and not waits then
      report('I1: lane ' .. g .. ' waits for a token but is not scheduled to rejoin')
    end
    if waits and inInner[g] then report('I1: lane ' .. g .. ' is in its tenant\'s ring and in throttled') end
  end
end
for g in pairs(entries) do
  local st = laneState(g)
  local waits = rcall('ZSCORE', K.throttled, g)
  -- In cost mode a lane over its share sits out in gdebt (lua/includes/cost.lua).
  local sits = rcall('ZSCORE', K.gdebt, g)
  if sits and not COST_Q then report('I1: lane ' .. g .. ' sits out in gdebt but the queue is not in cost mode') end
  if sits and inRing[g] then report('I1: lane ' .. g .. ' is in the ring and in gdebt') end
  if st == 'ring' and not inRing[g] and not waits and not sits then
    report('I1: lane ' .. g .. ' is serviceable but not in the ring')
  elseif st == 'wait' and not waits then
    report('I1: lane ' .. g .. ' waits for a token but is not scheduled to rejoin')
  end
  if waits and inRing[g] then report('I1: lane ' .. g .. ' is in the ring and in throttled') end
end

-- Counters and the lane directory.
local pc = pendingCount()
if pc ~= pendingTotal then report('counter: the counters give ' .. pc .. ' pending jobs but ' .. pendingTotal .. ' are pending') end
local gl = rcall('HGETALL', K.glive)
local liveOf = {}
for i = 1, #gl, 2 do if gl[i] ~= COUNTERS_MARK then liveOf[gl[i]] = tonumber(gl[i + 1]) end end
for g, n in pairs(live) do
  if (liveOf[g] or 0) ~= n then report('counter: glive[' .. g .. '] = ' .. (liveOf[g] or 0) .. ' but lane has ' .. n .. ' live jobs') end
  if not rcall('ZSCORE', K.lanes, g) then report('directory: lane ' .. g .. ' has live jobs but is not listed') end
end
for g, n in pairs(liveOf) do
  if not live[g] and n ~= 0 then report('counter: glive[' .. g .. '] = ' .. n .. ' but lane has no live job') end
end
checkSchedules(report)
return out
