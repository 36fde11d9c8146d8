--@include mendLane
--@include record
--@include attcheck
-- The phases of a repair step (lua/includes/mend.lua) that walk the places
-- of the jobs: each a function of R (the step's state) that does up to
-- R.budget items from position R.pos and returns the next position (nil:
-- the phase is done) and the work it did.
local function inZ(key, id) return rcall('ZSCORE', key, id) ~= false end
-- A job of lane g counted in the tally: slot 1 leased, 2 delayed.
local function tally(R, g, slot)
  local t = R.tally[g]
  if not t then t = { 0, 0 }; R.tally[g] = t end
  t[slot] = t[slot] + 1
end
-- The next rank of a walk by rank that read `n` items and removed `gone`
-- (when applied, the items after them moved down by as many).
local function nextRank(R, from, n, gone)
  if n < R.budget then return nil end
  return S(from + n - (R.apply and gone or 0))
end
-- One chunk of a place scored by job id (leases, delayed, dead): `earlier`
-- lists the places that come first for a job found in two.
local function walkPlace(R, key, name, slot, earlier)
  local from = tonumber(R.pos)
  local ids = rcall('ZRANGE', key, from, from + R.budget - 1)
  local recs = #ids > 0 and callSliced('HMGET', K.jobs, ids) or {}
  local gone = 0
  for i, id in ipairs(ids) do
    if id == ZSET_MARK then  -- no job (lua/includes/base.lua)
    elseif not recs[i] then
      say(R, 'I3: ' .. name .. ' holds job ' .. id .. ' whose record is missing: removed')
      mendWrite(R, 'ZREM', key, id)
      gone = gone + 1
    else
      local g = unpackRecord(recs[i])
      local first
      for _, e in ipairs(earlier) do
        local k = e == 'lane' and pendingKey(g) or K[e]
        if inZ(k, id) then first = e == 'lane' and ('lane ' .. g) or e; break end
      end
      if first then
        say(R, 'I3: job ' .. id .. ' is in ' .. first .. ' and in ' .. name .. ': removed from ' .. name)
        mendWrite(R, 'ZREM', key, id)
        gone = gone + 1
      else
        if slot then tally(R, g, slot) end
        if slot == 1 and inZ(pendingKey(g), id) then
          say(R, 'I3: job ' .. id .. ' is in leases and in lane ' .. g .. ': removed from lane ' .. g)
          mendWrite(R, 'ZREM', pendingKey(g), id)
        end
      end
    end
  end
  return nextRank(R, from, #ids, gone), #ids
end
-- doneexp or donecnt: ids that are not finished leave.
local function walkExpiry(R, key)
  local from = tonumber(R.pos)
  local ids = rcall('ZRANGE', key, from, from + R.budget - 1)
  local gone = 0
  for _, id in ipairs(ids) do
    if not inZ(K.done, id) then
      say(R, 'finished: ' .. key .. ' holds job ' .. id .. ' that is not finished: removed')
      mendWrite(R, 'ZREM', key, id)
      gone = gone + 1
    end
  end
  return nextRank(R, from, #ids, gone), #ids
end
-- One HSCAN step of hash `key`; each(field, value) looks at an entry.
local function scanHash(R, key, each)
  local r = rcall('HSCAN', key, R.pos, 'COUNT', R.budget)
  local f = r[2]
  for i = 1, #f, 2 do each(f[i], f[i + 1]) end
  return r[1] ~= '0' and r[1] or nil, #f / 2
end
local MEND_JOBS = {}
MEND_JOBS.L = function(R) return walkPlace(R, K.leases, 'leases', 1, {}) end
-- (A leased job also in its lane leaves the lane: see walkPlace.)
MEND_JOBS.D = function(R) return walkPlace(R, K.delayed, 'delayed', 2, { 'leases', 'lane' }) end
MEND_JOBS.X = function(R) return walkPlace(R, K.dead, 'dead', nil, { 'leases', 'lane', 'delayed' }) end
MEND_JOBS.F = function(R)
  local from = tonumber(R.pos)
  local ids = rcall('ZRANGE', K.done, from, from + R.budget - 1)
  local gone = 0
  for _, id in ipairs(ids) do
    local why
    if rcall('HEXISTS', K.jobs, id) == 1 then why = 'is a job that lives or died'
    elseif rcall('HEXISTS', K.fin, id) == 0 then why = 'has no outcome' end
    if why then
      say(R, 'I3: finished holds job ' .. id .. ' that ' .. why .. ': removed')
      for _, k in ipairs({ K.done, K.doneexp, K.donecnt }) do mendWrite(R, 'ZREM', k, id) end
      gone = gone + 1
    end
  end
  return nextRank(R, from, #ids, gone), #ids
end
MEND_JOBS.E = function(R) return walkExpiry(R, K.doneexp) end
MEND_JOBS.K = function(R) return walkExpiry(R, K.donecnt) end
MEND_JOBS.H = function(R)
  return scanHash(R, K.fin, function(id)
    if not inZ(K.done, id) and not inZ(K.dead, id) then
      say(R, 'I3: fin holds job ' .. id .. ' that is neither finished nor dead: removed')
      mendWrite(R, 'HDEL', K.fin, id)
    end
  end)
end
MEND_JOBS.J = function(R)
  return scanHash(R, K.jobs, function(id, rec)
    local g = unpackRecord(rec)
    if not (inZ(K.leases, id) or inZ(pendingKey(g), id) or inZ(K.delayed, id) or inZ(K.dead, id)
            or inZ(K.parents, id)) then
      say(R, 'I3: job ' .. id .. ' is in no place: back in lane ' .. g)
      mendWrite(R, 'ZADD', pendingKey(g), id, id)
    end
  end)
end
MEND_JOBS.A = function(R)
  return scanHash(R, K.att, function(id, v)
    local problem, g, ag = attProblem(id, v)
    if problem == 'orphan' then
      say(R, 'I3: att holds job ' .. id .. ' that does not exist: removed')
      mendWrite(R, 'HDEL', K.att, id)
    elseif problem == 'lane' then
      local att, err, token = unpackAtt(v)
      say(R, 'att: job ' .. id .. ' names lane ' .. tostring(ag) .. ', its record ' .. g .. ': set to ' .. g)
      mendWrite(R, 'HSET', K.att, id, packAtt(token, att, g, err))
    end
  end)
end
-- Q: each lane's pending set holds only jobs of its own (read whole).
MEND_JOBS.Q = function(R)
  local r = rcall('SCAN', R.pos, 'MATCH', globEscape(P) .. 'g:*:pending', 'COUNT', R.budget)
  local work = 0
  for _, key in ipairs(r[2]) do
    local g = string.sub(key, #P + 3, #key - 8)
    local ids = rcall('ZRANGE', key, 0, -1)
    local recs = callSliced('HMGET', K.jobs, ids)
    for i, id in ipairs(ids) do
      if not recs[i] then
        say(R, 'I3: lane ' .. g .. ' holds job ' .. id .. ' whose record is missing: removed')
        mendWrite(R, 'ZREM', key, id)
      else
        local jg = unpackRecord(recs[i])
        if jg ~= g then
          local placed = inZ(K.leases, id) or inZ(K.delayed, id) or inZ(K.dead, id) or inZ(pendingKey(jg), id)
          say(R, 'I3: job ' .. id .. ' of lane ' .. jg .. ' sits in lane ' .. g .. ': ' ..
            (placed and 'removed' or 'moved to its lane'))
          mendWrite(R, 'ZREM', key, id)
          if not placed then mendWrite(R, 'ZADD', pendingKey(jg), id, id) end
        end
      end
    end
    work = work + 1 + #ids
  end
  return r[1] ~= '0' and r[1] or nil, work
end
