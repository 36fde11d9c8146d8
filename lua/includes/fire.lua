--@include sched
--@include idemStore
--@include lane
--@include emit
--@include typeGuard
-- The promotion of due schedule ticks, a part of a claim's recovery step
-- (lua/includes/recover.lua) once the queue's earliest tick is due (config
-- `sched`, read by readQueue into Q.sched), as due delayed jobs are: no
-- scheduler process. At most SCHEDULE_FIRE_MAX schedules per call; a
-- schedule that is not due costs a claim nothing. Firing a tick enqueues its
-- job and moves the schedule on in the same script: one job per tick,
-- whoever claims. One table of functions: take gains one local.
local Fire = {}
-- The schedules due at `now`, read before the call's first write, with
-- every key their fires may write added to `checked` (key -> type, for
-- typeGuard). Empty when none is (config `sched` ran ahead: Fire.fire sets it).
function Fire.due(now, checked)
  local names = rcall('ZRANGEBYSCORE', okey('sdue'), '-inf', S(now), 'LIMIT', 0, SCHEDULE_FIRE_MAX)
  if #names == 0 then return {} end
  for name, key in pairs(K) do checked[key] = KEY_TYPES[name] end
  for _, name in ipairs({ 'sdue', 'sdir', 'sjob', 'sjobs', 'idem', 'idemexp', 'keep', 'events' }) do
    checked[okey(name)] = KEY_TYPES[name]
  end
  local due = {}
  for i, name in ipairs(names) do
    checked[Sched.key(name)] = 'hash'
    local h = Sched.read(name)  -- a wrong type fails here, before any write
    -- Read whole now: a fire must not fail part-way (no half writes).
    local ok = Sched.armed(h) and Ticks.timing(h) and tonumber(h.next)
    due[i] = { name = name, h = h, ok = ok }
    if ok then laneKeyTypes(h.lane, checked) end
  end
  return due
end
-- Is lane g at its size cap (pending + delayed jobs: lua/enqueue.lua)?
function Fire.laneFull(g)
  local c = rcall('HMGET', K.gcap, g, '')
  local cap = tonumber(c[1] or c[2] or '')
  if not cap then return false end
  local live = tonumber(rcall('HGET', K.glive, g) or '0')
  return live - tonumber(rcall('HGET', K.gactive, g) or '0') >= cap
end
-- Which schedule and tick job id is (echomq_get_job), dropped lazily: each
-- fire looks at the two oldest entries and drops those whose job is gone;
-- one still alive goes to the back.
function Fire.remember(id, name, tick, now)
  for _, j in ipairs(rcall('ZRANGE', okey('sjobs'), 0, 1)) do
    if not Sched.place(j) then
      rcall('HDEL', okey('sjob'), j); rcall('ZREM', okey('sjobs'), j)
    else
      rcall('ZADD', okey('sjobs'), S(now), j)
    end
  end
  rcall('HSET', okey('sjob'), id, S(tick) .. ' ' .. name)
  rcall('ZADD', okey('sjobs'), S(now), id)
end
-- Enqueues the job of tick `tick` of schedule `name` (spec h) on its lane,
-- as an enqueue would (lua/includes/enqueueWrite.lua: the flags of the
-- queue's tenant and outcome paths, a record, the lane, its ring place, the
-- counts), with its idempotency key; returns its id.
function Fire.enqueue(Q, name, h, tick, key, window, now)
  local g = h.lane
  if not Q.tenants and tenantOf(g) then Q.tenants = '1'; rcall('HSET', K.config, 'tenants', '1') end
  local before = laneState(g)
  local id = S(rcall('INCRBY', K.seq, 1))  -- as enqueue mints (the worker's ACL: docs/operations.md)
  local mx = tonumber(h.maxatt)
  if mx == 0 then mx = tonumber(rcall('HGET', K.config, 'maxatt') or '') or DEFAULT_MAX_ATTEMPTS end
  rcall('HSET', K.jobs, id, packRecord(now, mx, mx, g, h.payload))
  rcall('HINCRBY', K.stats, 'enqueued', 1)
  addLive(Q, g, 1)
  rcall('ZADD', pendingKey(g), id, id)
  fixRing(Q, g, before)
  if Q.cost and h.est ~= '0' then rcall('HSET', K.est, id, h.est) end
  if h.keepms ~= '0' or h.keeplast ~= '0' then
    rcall('HSET', okey('keep'), id, h.keepms .. ' ' .. h.keeplast)
    rcall('HSET', K.config, 'outcomes', '1', 'keepjob', '1')  -- from the next call on, as an enqueue's
  end
  Idem.store(okey('idem'), okey('idemexp'), { key, id .. ' ' .. S(now + window) },
    { S(now + window), key }, now, 2)
  Fire.remember(id, name, tick, now)
  if Q.outcomes and outcomeConf(Q).enq then emit(Q, 'enqueued', id, g, 0) end
  return id
end
-- Why tick `tick` of schedule h does not fire now (nil: it fires): too late
-- for the skip policy, its previous job still there (overlap skip), its
-- lane full, or its key held (it fired already).
function Fire.skipReason(h, tick, key, now)
  local prev = h.overlap == 'skip' and Sched.place(h.fjob)
  if h.missed == 'skip' and now - tick > tonumber(h.grace) then return 'late' end
  if prev == 'pending' or prev == 'leased' or prev == 'delayed' then return 'overlap' end
  if Fire.laneFull(h.lane) then return 'full' end
  if Idem.held(okey('idem'), key, now) then return 'duplicate' end
  return nil
end
-- One due schedule: the ticks due in [next, now] are handled as one (the
-- latest of them fires, or is skipped), then it is armed for its first
-- tick after now, or ends.
function Fire.one(Q, name, h, ok, now)
  if not ok then
    rcall('ZREM', okey('sdue'), name)  -- unreadable or not armed: verify reports it
    return
  end
  if tonumber(h.next) > now then  -- its score ran ahead of its hash
    rcall('ZADD', okey('sdue'), h.next, name)
    return
  end
  local s = Ticks.timing(h)
  local tick, count = Ticks.latest(s, tonumber(h.next), now)
  local nxt = Ticks.next(s, math.max(now, tick))
  -- The key of the tick: held while its window is open, so a tick seen
  -- already (also by a re-created schedule) does not fire again.
  local key = 'sched:' .. name .. ':' .. S(tick)
  local window = math.min(math.max(2 * ((nxt or tick) - tick), 60000), DEDUP_WINDOW_DEFAULT_MS)
  local reason = Fire.skipReason(h, tick, key, now)
  local runs, skips = tonumber(h.runs), tonumber(h.skips)
  local set = { 'last', S(tick), 'updated', S(now) }
  local skipped = reason and count or count - 1
  if not reason then
    local id = Fire.enqueue(Q, name, h, tick, key, window, now)
    runs = runs + 1
    for _, v in ipairs({ 'ftick', S(tick), 'fat', S(now), 'fjob', id }) do set[#set + 1] = v end
    emit(Q, 'fired', id, h.lane, 0, { 'schedule', name, 'tick', S(tick), 'late', S(now - tick) })
  end
  if skipped > 0 then
    skips = skips + skipped
    emit(Q, 'skipped', '', h.lane, 0, { 'schedule', name, 'tick', S(tick), 'count', S(skipped),
      'reason', reason or 'missed' })
  end
  local limit = tonumber(h.limit)
  if limit > 0 and runs >= limit then nxt = nil end
  for _, v in ipairs({ 'runs', S(runs), 'skips', S(skips), 'next', nxt and S(nxt) or '' }) do set[#set + 1] = v end
  if nxt then
    rcall('ZADD', okey('sdue'), S(nxt), name)
  else
    rcall('ZREM', okey('sdue'), name)
    set[#set + 1] = 'ended'; set[#set + 1] = (limit > 0 and runs >= limit) and 'limit' or 'end'
  end
  rcall('HSET', Sched.key(name), unpack(set))
end
-- Fires the schedules Fire.due read (their hashes as read then: nothing
-- else in the call changes them); returns the next tick of the earliest
-- armed schedule now (config `sched`, nil for none), part of the claim's
-- next due time, so an idle engine's wait wakes for it (nextDue).
function Fire.fire(Q, due, now)
  for _, d in ipairs(due) do Fire.one(Q, d.name, d.h, d.ok, now) end
  return Sched.arm()
end
