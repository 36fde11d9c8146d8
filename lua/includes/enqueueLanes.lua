--@include lane
--@include many
--@include typeGuard
--@include okey
--@include lifeEnqueue
-- The reads of an enqueue before its first write (lua/enqueue.lua), each
-- able to refuse the whole call (no half writes).
-- The lanes of the entries to enqueue (E.groups[i] of each i in entries),
-- in the order of their first job, and the jobs of each (count[g]); or nil
-- and {EINVAL, msg} for a name no lane may have.
local function enqueueLanes(E, entries)
  local lanes, count = {}, {}
  for _, i in ipairs(entries) do
    local g = E.groups[i]
    if not count[g] then
      -- A delivery state ends its group at "\n" (lua/includes/record.lua).
      if string.find(g, '%c') then return nil, { EINVAL, 'enqueue: group name holds a control character' } end
      local why = laneNameProblem(g)
      if why then return nil, { EINVAL, 'enqueue: ' .. why } end
      count[g] = 0; lanes[#lanes + 1] = g
    end
    count[g] = count[g] + 1
  end
  return lanes, count
end
-- A lane at its size cap (gcap: the most jobs waiting in it, pending +
-- delayed) refuses the whole call: {EFULL, msg}, else nil.
local function sizeCapError(lanes, count)
  local q = {}
  for i, g in ipairs(lanes) do q[i] = g end
  q[#q + 1] = ''
  local sizeCap, capped = readFields(K.gcap, q), {}
  for _, g in ipairs(lanes) do
    sizeCap[g] = tonumber(sizeCap[g] or sizeCap[''] or '')
    if sizeCap[g] then capped[#capped + 1] = g end
  end
  if #capped == 0 then return nil end
  local live, act = readFields(K.glive, capped), readFields(K.gactive, capped)
  for _, g in ipairs(capped) do
    local waiting = tonumber(live[g] or '0') - tonumber(act[g] or '0')
    if waiting + count[g] > sizeCap[g] then
      return { EFULL, 'enqueue: lane ' .. g .. ' holds ' .. waiting .. ' waiting jobs, its cap is ' ..
        sizeCap[g] .. ': ' .. count[g] .. ' more do not fit (nothing was enqueued)' }
    end
  end
  return nil
end
-- Of the lanes, those that become serviceable with these jobs (join: they
-- were empty, run, are below their ceiling and have a token) and those
-- that would but for a token (wait: due time, lane pairs for `throttled`);
-- with burst ceilings, those that join the burst ring instead (bursting:
-- at or above their ceiling, below their burst; lua/includes/burstRing.lua).
local function joinPlan(Q, lanes, now)
  local join, wait, bursting = {}, {}, {}
  local lim = laneSettings(Q, lanes, false)
  local limited = {}
  for _, g in ipairs(lanes) do if lim[g] then limited[#limited + 1] = g end end
  local act = #limited > 0 and readFields(K.gactive, limited) or {}
  local paused = callSliced('SMISMEMBER', K.paused, lanes)
  local rq = {}
  for i, g in ipairs(lanes) do rq[i] = g end
  rq[#rq + 1] = ''
  local rates, buckets = readFields(K.grate, rq), readFields(K.gbucket, lanes)
  for i, g in ipairs(lanes) do
    local was = rcall('EXISTS', pendingKey(g)) == 1
    local a = lim[g] and tonumber(act[g] or '0')
    local burst = Q.burst and not was and a and a >= lim[g] and Life.burstJoins(g, a, lim[g])
    if not was and paused[i] == 0 and (not (a and a >= lim[g]) or burst) then
      local r, b = rates[g] or rates[''] or nil, buckets[g] or nil
      local ok, due = true, nil
      if r or b then
        local o, _, d = rateState(parseRate(r), b, now)
        ok, due = o, d
      end
      if not ok then wait[#wait + 1] = S(due); wait[#wait + 1] = g
      elseif burst then bursting[#bursting + 1] = g
      else join[#join + 1] = g end
    end
  end
  return join, wait, bursting
end
-- Every key the enqueue writes holds its type: a typeGuard reply, or nil.
local function enqueueGuard(Q, E, lanes, join, wait, bursting)
  local want = { [K.seq] = 'string', [K.jobs] = 'hash', [K.stats] = 'hash', [K.glive] = 'hash',
                 [K.gactive] = 'hash', [K.gserved] = 'hash', [K.lanes] = 'zset',
                 [K.leases] = 'zset', [K.delayed] = 'zset', [K.att] = 'hash' }  -- the last three for their marks
  if E.delay == 0 then for _, g in ipairs(lanes) do want[pendingKey(g)] = 'zset' end end
  if #wait > 0 then want[K.throttled] = 'zset' end
  if #join > 0 then want[K.ring] = 'list'; want[K.wake] = 'list' end
  if #bursting > 0 then want[P .. 'bring'] = 'list'; want[K.wake] = 'list' end
  if #join > 0 and Q.cost then want[K.gdebt] = 'zset' end
  -- A lane of a tenant joins its inner ring, and its tenant may join the
  -- outer ring (lua/includes/lane.lua, joinRing): the keys that reads.
  for _, g in ipairs(join) do
    if tenantOf(g) then
      for _, name in ipairs({ 'paused', 'glimit', 'grate', 'gbucket', 'throttled' }) do want[K[name]] = KEY_TYPES[name] end
      laneKeyTypes(g, want)
    end
  end
  if E.keys then want[K.idem] = 'hash'; want[K.idemexp] = 'zset' end
  if E.keep then want[okey('keep')] = 'hash'; want[K.config] = 'hash' end
  if E.estimate then want[K.est] = 'hash' end
  if E.life then Life.enqueueKeys(E, want) end
  if Q.outcomes then want[okey('events')] = 'stream' end
  return typeGuard(want)
end
