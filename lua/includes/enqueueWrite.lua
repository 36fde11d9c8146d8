--@include lane
--@include many
--@include record
--@include marks
--@include emit
--@include okey
--@include lifeEnqueue
-- The writes of an enqueue (lua/enqueue.lua), after every check.
-- The jobs of `entries` (indexes into E's jobs) get consecutive ids from
-- `first` in mint order, their records, estimates, retention and events.
-- Returns first and the ids of each lane's jobs (idsOf[g], in order).
local function addJobs(Q, E, entries, lanes, now)
  local n = #entries
  local first = rcall('INCRBY', K.seq, n) - n + 1
  rcall('HSET', K.config, 'layout', KEY_LAYOUT)
  -- The first lane of a tenant turns the queue's tenant paths on (Q.tenants).
  if not Q.tenants then
    for _, g in ipairs(lanes) do
      if tenantOf(g) then Q.tenants = '1'; rcall('HSET', K.config, 'tenants', '1'); break end
    end
  end
  markKeys()
  local recs, idsOf, perJob = {}, {}, {}
  local head = recordHead(now, E.maxatt, E.maxatt)
  for e, i in ipairs(entries) do
    local g = E.groups[i]
    local id = S(first + e - 1)
    recs[e + e - 1] = id
    recs[e + e] = packRecordWith(head, g, E.payloads[i], E.meta and E.meta[i])
    local l = idsOf[g]
    if not l then l = {}; idsOf[g] = l end
    l[#l + 1] = id
  end
  callSliced('HSET', K.jobs, recs)
  rcall('HINCRBY', K.stats, 'enqueued', n)
  -- A value kept per job: an id, value pair for each.
  local function each(key, v)
    for e = 1, n do perJob[e + e - 1] = recs[e + e - 1]; perJob[e + e] = v end
    callSliced('HSET', key, perJob)
  end
  if E.estimate then each(K.est, S(E.estimate)) end
  if E.life then  -- lua/includes/lifeEnqueue.lua
    local ids = {}
    for e = 1, n do ids[e] = recs[e + e - 1] end
    Life.enqueueJobs(Q, E, ids)
  end
  if E.keep then
    each(okey('keep'), E.keep)
    rcall('HSET', K.config, 'outcomes', '1', 'keepjob', '1')
  end
  if Q.outcomes and outcomeConf(Q).enq then
    for e, i in ipairs(entries) do emit(Q, 'enqueued', recs[e + e - 1], E.groups[i], 0) end
  end
  return first, idsOf
end
-- The jobs join their lanes (count[g] each, ids idsOf[g]): the lanes' live
-- counts and directory entries (with their tenants': glive[T/] counts all
-- of T's lanes, lua/includes/lane.lua), then the delayed set, or the
-- pending sets with the lanes that become serviceable joining their ring
-- (join), the burst ring (bursting: lua/includes/burstRing.lua) or waiting
-- for a token (wait), in the order of their first job.
local function addToLanes(Q, E, lanes, count, idsOf, join, wait, bursting, now)
  local listed, tenantSeen = {}, {}
  for _, g in ipairs(lanes) do
    local te = tenantOf(g)
    if te then
      if not tenantSeen[te] then tenantSeen[te] = true; listed[#listed + 1] = te; count[te] = 0 end
      count[te] = count[te] + count[g]
    end
  end
  for _, g in ipairs(lanes) do listed[#listed + 1] = g end
  local dir = {}
  for _, g in ipairs(listed) do dir[#dir + 1] = '0'; dir[#dir + 1] = g end
  addCounts(K.glive, listed, count)
  callSliced('ZADD', K.lanes, dir, { 'NX' })
  if E.delay > 0 then
    local due, d = S(now + E.delay), {}
    for _, g in ipairs(lanes) do
      for _, id in ipairs(idsOf[g]) do d[#d + 1] = due; d[#d + 1] = id end
    end
    callSliced('ZADD', K.delayed, d)
    return
  end
  for _, g in ipairs(lanes) do
    local z = {}
    for _, id in ipairs(idsOf[g] or {}) do z[#z + 1] = id; z[#z + 1] = id end
    if #z > 0 then callSliced('ZADD', pendingKey(g), z) end  -- a flow's lane may hold only parents
  end
  if #wait > 0 then callSliced('ZADD', K.throttled, wait) end
  for _, g in ipairs(bursting) do Life.joinBurst(g) end
  if #join == 0 then return end
  -- Plain lanes in runs of one RPUSH each, a lane of a tenant through its
  -- tenant's inner ring (joinRing).
  local run = {}
  local function pushRun()
    if #run == 0 then return end
    if Q.cost then callSliced('ZREM', K.gdebt, run) end  -- as joinRing (lua/includes/lane.lua)
    callSliced('RPUSH', K.ring, run)
    run = {}
  end
  for _, g in ipairs(join) do
    if Q.tenants and tenantOf(g) then pushRun(); joinRing(Q, g) else run[#run + 1] = g end
  end
  pushRun()
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
