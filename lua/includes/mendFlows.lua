--@include mendJobs
--@include flowKeys
-- The phases of a repair step (lua/includes/mend.lua) for flows: each
-- parent waits with the count of its children not finished, and only a
-- parent waits (docs/architecture.md, "Flows").
--   N deps (HSCAN): a count of a job that does not wait goes;
--   B up (HSCAN): the link of a job that does not exist goes, with its
--     children's outcomes;
--   M parents (by rank): a parent without a record leaves; its count is set
--     to its children not finished that exist; with none it joins its lane;
--   G parents (by rank): I3 against the places before it, counted in the
--     tally beside the delayed jobs (live, neither pending nor leased).
-- The unfinished children of parent pid that exist (listed "" in its k: hash).
local function unfinishedKids(pid)
  local all, n = rcall('HGETALL', FL.kids(pid)), 0
  for i = 1, #all, 2 do
    if all[i + 1] == '' and rcall('HEXISTS', K.jobs, all[i]) == 1 then n = n + 1 end
  end
  return n
end
MEND_JOBS.N = function(R)
  return scanHash(R, K.deps, function(id)
    if not inZ(K.parents, id) then
      say(R, 'flows: deps counts job ' .. id .. ' that does not wait for children: removed')
      mendWrite(R, 'HDEL', K.deps, id)
    end
  end)
end
MEND_JOBS.B = function(R)
  return scanHash(R, K.up, function(id)
    if rcall('HEXISTS', K.jobs, id) == 0 then
      say(R, 'flows: up links job ' .. id .. ' that does not exist: removed')
      mendWrite(R, 'HDEL', K.up, id)
      mendWrite(R, 'DEL', FL.kids(id))
    end
  end)
end
MEND_JOBS.M = function(R)
  local from = tonumber(R.pos)
  local ids = rcall('ZRANGE', K.parents, from, from + R.budget - 1)
  local gone = 0
  for _, pid in ipairs(ids) do
    local rec = rcall('HGET', K.jobs, pid)
    local n = rec and unfinishedKids(pid) or 0
    local had = tonumber(rcall('HGET', K.deps, pid) or '-1')
    if not rec then
      say(R, 'I3: parents holds job ' .. pid .. ' whose record is missing: removed')
      mendWrite(R, 'ZREM', K.parents, pid)
      mendWrite(R, 'HDEL', K.deps, pid)
      gone = gone + 1
    elseif n == 0 then
      local g = unpackRecord(rec)
      say(R, 'flows: parent ' .. pid .. ' waits for no unfinished child: joins lane ' .. g)
      mendWrite(R, 'ZREM', K.parents, pid)
      mendWrite(R, 'HDEL', K.deps, pid)
      mendWrite(R, 'ZADD', pendingKey(g), pid, pid)
      gone = gone + 1
    elseif had ~= n then
      say(R, 'flows: deps[' .. pid .. '] = ' .. S(had) .. ' but ' .. S(n) .. ' children are not finished: set')
      mendWrite(R, 'HSET', K.deps, pid, S(n))
    end
  end
  return nextRank(R, from, #ids, gone), #ids
end
MEND_JOBS.G = function(R)
  return walkPlace(R, K.parents, 'parents', 2, { 'leases', 'lane', 'delayed', 'dead' })
end
