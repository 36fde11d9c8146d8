--@include mendLane
--@include counts
-- The phases of a repair step (lua/includes/mend.lua) that mend the lanes
-- and tenants, and the counters: as lua/includes/mendJobs.lua's, each a
-- function of R that returns the next position (nil: done) and its work.
-- Lanes are mended once: by the first phase that meets them.
local function metBefore(R, g, ph)
  local at = string.find(R.phases, ph, 1, true)
  local function before(q) return string.find(R.phases, q, 1, true) < at end
  if rcall('EXISTS', pendingKey(g)) == 1 then return true end
  if before('T') and R.tally[g] then return true end
  if before('V') and rcall('HEXISTS', K.glive, g) == 1 then return true end
  if before('C') and rcall('HEXISTS', K.gactive, g) == 1 then return true end
  if before('R') and rcall('ZSCORE', K.lanes, g) then return true end
  return false
end
-- A walk of the lane directory by rank: each(g) looks at a name and
-- returns its work. Entries dropped may lie before the next position: it
-- steps back by them (a lane met twice is mended once; the second time
-- changes nothing).
local function walkDirectory(R, each)
  local from = tonumber(R.pos)
  local names = rcall('ZRANGE', K.lanes, from, from + R.budget - 1)
  local size, work = rcall('ZCARD', K.lanes), 0
  for _, g in ipairs(names) do work = work + (each(g) or 0) end
  work = math.max(work, #names)
  if #names < R.budget then return nil, work end
  return S(math.max(from, from + #names - (size - rcall('ZCARD', K.lanes)))), work
end
-- One HSCAN step of a counter hash: each(field) looks at an entry and
-- returns its work.
local function walkCounters(R, key, each)
  local r = rcall('HSCAN', key, R.pos, 'COUNT', R.budget)
  local f, work = r[2], 0
  for i = 1, #f, 2 do work = work + (each(f[i]) or 0) end
  return r[1] ~= '0' and r[1] or nil, math.max(work, #f / 2)
end
local function mendLanesOf(R, key, ph)
  return walkCounters(R, key, function(g)
    if g ~= COUNTERS_MARK and not isTenant(g) and not metBefore(R, g, ph) then mendLane(R, g) end
  end)
end
local function mendTenantsOf(R, key)
  return walkCounters(R, key, function(g) if isTenant(g) then return mendTenant(R, g) end end)
end
local MEND_LANES = {}
-- P: every lane with pending jobs is mended; its jobs are counted. The
-- same walk meets the tenants' inner rings: one of a tenant with no lane
-- listed is mended here (no later phase meets it); the others after all
-- their lanes (phase O).
MEND_LANES.P = function(R)
  local r = rcall('SCAN', R.pos, 'MATCH', globEscape(P) .. '[gt]:*', 'COUNT', R.budget)
  local work = 0
  for _, key in ipairs(r[2]) do
    local kind = string.sub(key, #P + 1, #P + 2)
    if kind == 'g:' and string.sub(key, -8) == ':pending' then
      R.total = R.total + rcall('ZCARD', key)
      mendLane(R, string.sub(key, #P + 3, #key - 8))
      work = work + 1
    elseif kind == 't:' and string.sub(key, -5) == ':ring' then
      local te = string.sub(key, #P + 3, #key - 5) .. '/'
      if not isTenant(te) then
        say(R, 'ring: ' .. key .. ' is the inner ring of no tenant: removed')
        mendWrite(R, 'DEL', key)
      elseif #rcall('ZRANGEBYLEX', K.lanes, '(' .. te, '(' .. string.sub(te, 1, -2) .. '0', 'LIMIT', 0, 1) == 0 then
        work = work + mendTenant(R, te)
      end
    end
  end
  return r[1] ~= '0' and r[1] or nil, math.max(work, #r[2])
end
MEND_LANES.T = function(R)
  local names = {}
  for g in pairs(R.tally) do names[#names + 1] = g end
  table.sort(names)
  for _, g in ipairs(names) do
    if not metBefore(R, g, 'T') then mendLane(R, g) end
  end
  return nil, #names
end
MEND_LANES.V = function(R) return mendLanesOf(R, K.glive, 'V') end
MEND_LANES.C = function(R) return mendLanesOf(R, K.gactive, 'C') end
MEND_LANES.R = function(R)
  return walkDirectory(R, function(g)
    if not isTenant(g) and not metBefore(R, g, 'R') then mendLane(R, g) end
  end)
end
MEND_LANES.I = function(R)
  local from = tonumber(R.pos)
  local names = rcall('LRANGE', K.ring, from, from + R.budget - 1)
  local size, seen = rcall('LLEN', K.ring), {}
  for i, g in ipairs(names) do
    -- A lane is met at its first ring entry only (a dry run writes
    -- nothing, so positions hold; applied, mending again changes nothing).
    local first = R.apply and not seen[g] or (not R.apply and rcall('LPOS', K.ring, g) == from + i - 1)
    seen[g] = true
    if first and isTenant(g) then mendTenant(R, g)
    elseif first and not metBefore(R, g, 'I') then mendLane(R, g) end
  end
  if #names < R.budget then return nil, #names end
  return S(math.max(from, from + #names - (size - rcall('LLEN', K.ring)))), #names
end
-- O, U, W: the tenants, after all their lanes: those in the directory (by
-- a lane or their entry), in gactive, in glive (and in the ring: phase I).
MEND_LANES.O = function(R)
  return walkDirectory(R, function(g)
    local te = isTenant(g) and g or tenantOf(g)
    if te then return mendTenant(R, te) end
  end)
end
MEND_LANES.U = function(R) return mendTenantsOf(R, K.gactive) end
MEND_LANES.W = function(R) return mendTenantsOf(R, K.glive) end
-- S: the counters are set against the pending jobs counted in phase P.
MEND_LANES.S = function(R)
  local pc, total = pendingCount(), R.total
  local said = ' (the counters gave ' .. S(pc) .. ' pending jobs, ' .. S(total) .. ' are pending)'
  if pc > total then
    say(R, 'stats: acked +' .. S(pc - total) .. said)
    mendWrite(R, 'HINCRBY', K.stats, 'acked', S(pc - total))
  elseif pc < total then
    say(R, 'stats: enqueued +' .. S(total - pc) .. said)
    mendWrite(R, 'HINCRBY', K.stats, 'enqueued', S(total - pc))
  end
  return nil, 1
end
