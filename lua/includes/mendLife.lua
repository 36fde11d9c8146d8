--@include mendLane
-- The repair phases (lua/includes/mend.lua) of the lifecycle's keys
-- (docs/keys.md, "Lifecycle"), each a function of R as mendJobs' are:
--   c cancel marks of jobs no longer leased go; e start deadlines of jobs
--   no longer waiting go (with their drops); d time limits of jobs that do
--   not exist go; b each burst-ring entry is mended (its place in both
--   rings: mendPlace, Life.mendBurst); f drops of jobs without a deadline
--   go, then the config `life` flag of every key that holds entries is set.
local function inPlace(id, where)
  return rcall('ZSCORE', where, id) ~= false
end
-- One HSCAN step of hash `key`; gone(field) says why it goes, or nil.
local function sweep(R, key, gone)
  local r = rcall('HSCAN', key, R.pos, 'COUNT', R.budget)
  local f = r[2]
  for i = 1, #f, 2 do
    local why = gone(f[i])
    if why then
      say(R, why .. ': removed')
      mendWrite(R, 'HDEL', key, f[i])
    end
  end
  return r[1] ~= '0' and r[1] or nil, #f / 2
end
Life.MEND = {}
Life.MEND.c = function(R)
  return sweep(R, P .. 'cancels', function(id)
    if not inPlace(id, K.leases) then return 'I3: cancels marks job ' .. id .. ', which is not leased' end
  end)
end
Life.MEND.e = function(R)
  local from = tonumber(R.pos)
  local ids = rcall('ZRANGE', P .. 'expiry', from, from + R.budget - 1)
  local recs = #ids > 0 and callSliced('HMGET', K.jobs, ids) or {}
  local gone = 0
  for i, id in ipairs(ids) do
    local g = recs[i] and unpackRecord(recs[i])
    if not g or not (inPlace(id, K.delayed) or inPlace(id, pendingKey(g))) then
      say(R, 'I3: expiry holds job ' .. id .. ', which is not waiting: removed')
      mendWrite(R, 'ZREM', P .. 'expiry', id)
      mendWrite(R, 'HDEL', P .. 'xdrop', id)
      gone = gone + 1
    end
  end
  if #ids < R.budget then return nil, #ids end
  return S(from + #ids - (R.apply and gone or 0)), #ids
end
Life.MEND.d = function(R)
  return sweep(R, P .. 'tmo', function(id)
    if rcall('HEXISTS', K.jobs, id) == 0 then return 'I3: tmo holds job ' .. id .. ', which does not exist' end
  end)
end
Life.MEND.b = function(R)
  local key = P .. 'bring'
  local from = tonumber(R.pos)
  local names = rcall('LRANGE', key, from, from + R.budget - 1)
  local size = rcall('LLEN', key)
  for _, g in ipairs(names) do
    if tenantOf(g) then
      say(R, 'bring: lane ' .. g .. ' of a tenant removed (its tenant bursts, not its lanes)')
      mendWrite(R, 'LREM', key, 0, g)
    elseif isTenant(g) then
      mendTenant(R, g)
    else
      mendLane(R, g)
    end
  end
  if #names < R.budget then return nil, #names end
  return S(math.max(from, from + #names - (size - rcall('LLEN', key)))), #names
end
Life.MEND.f = function(R)
  local nextPos, did = sweep(R, P .. 'xdrop', function(id)
    if not inPlace(id, P .. 'expiry') then return 'I3: xdrop holds job ' .. id .. ', which has no start deadline' end
  end)
  if nextPos then return nextPos, did end
  local flags = { { 'cancels', 'cancels', 'c' }, { 'expiry', 'expiry', 'x' }, { 'tmo', 'timeouts', 't' },
                  { 'gburst', 'burst', 'b' }, { 'qlimit', 'qlimit', 'g' } }
  for _, f in ipairs(flags) do
    if rcall('EXISTS', P .. f[1]) == 1 and not R.Q[f[2]] then
      say(R, 'life: ' .. f[1] .. ' holds entries: config life gets ' .. f[3])
      if R.apply then Life.set(R.Q, f[2], true) end
    end
  end
  return nil, did + 1
end
-- Outer entry g in state st (mendPlace): in the burst ring exactly once
-- while it is bursting (unless it waits for a token), else not there.
function Life.mendBurst(R, g, st, waits)
  local key = P .. 'bring'
  local n = #rcall('LPOS', key, g, 'COUNT', 0)
  if st == 'burst' then
    if n == 0 and not waits then
      say(R, 'bring: ' .. g .. ' added (bursting, not in the burst ring)')
      mendWrite(R, 'RPUSH', key, g)
    elseif n > 1 then
      say(R, 'bring: ' .. g .. ' was in the burst ring ' .. n .. ' times, now once')
      mendWrite(R, 'LREM', key, -(n - 1), g)
    end
  elseif n > 0 then
    say(R, 'bring: ' .. g .. ' removed (not bursting)')
    mendWrite(R, 'LREM', key, 0, g)
  end
end
