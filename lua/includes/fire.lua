--@include sched
--@include idemStore
--@include lane
--@include emit
--@include typeGuard
-- The promotion of due schedule ticks, run by every claim call of a queue
-- with schedules once its earliest tick is due (config `sched`, read with
-- the layout: lua/take.lua, its recovery step), as due delayed jobs are: no
-- scheduler process. At most SCHEDULE_FIRE_MAX schedules per call; a
-- schedule that is not due costs a claim nothing. Firing a tick enqueues its
-- job and moves the schedule on in the same script: one job per tick,
-- whoever claims.
-- Made on first use (Fire.lib()), so a claim of a queue without schedules
-- creates none of it, and take gains one local.
local Fire = {}
function Fire.lib()
  if Fire.L then return Fire.L end
  local F = {}
  local Sc = Sched.lib()
  local T = Sc.ticks
  -- The schedules due at `now`, read before the call's first write, with
  -- every key their fires may write added to `checked` (key -> type, for
  -- typeGuard). Empty when none is (config `sched` ran ahead: F.fire sets it).
  function F.due(now, checked)
    local names = rcall('ZRANGEBYSCORE', okey('sdue'), '-inf', S(now), 'LIMIT', 0, SCHEDULE_FIRE_MAX)
    if #names == 0 then return {} end
    for name, key in pairs(K) do checked[key] = KEY_TYPES[name] end
    for _, name in ipairs({ 'sdue', 'sdir', 'sjob', 'sjobs', 'idem', 'idemexp', 'keep', 'events' }) do
      checked[okey(name)] = KEY_TYPES[name]
    end
    local due = {}
    for i, name in ipairs(names) do
      checked[Sc.key(name)] = 'hash'
      local h = Sc.read(name)  -- a wrong type fails here, before any write
      -- Read whole now: a fire must not fail part-way (no half writes).
      local ok = Sc.armed(h) and T.timing(h) and tonumber(h.next)
      due[i] = { name = name, h = h, ok = ok }
      if ok then laneKeyTypes(h.lane, checked) end
    end
    return due
  end
  -- Is lane g at its size cap (pending + delayed jobs: lua/enqueue.lua)?
  local function laneFull(g)
    local c = rcall('HMGET', K.gcap, g, '')
    local cap = tonumber(c[1] or c[2] or '')
    if not cap then return false end
    local live = tonumber(rcall('HGET', K.glive, g) or '0')
    return live - tonumber(rcall('HGET', K.gactive, g) or '0') >= cap
  end
  -- Enqueues the job of tick `tick` of schedule `name` (spec h) on its lane,
  -- as enqueue would (lua/enqueue.lua: a record, the lane, its ring place,
  -- the counts), with its idempotency key; returns its id.
  local function enqueueTick(name, h, tick, key, window, now)
    local g = h.lane
    local before = laneState(g)
    local id = S(rcall('INCR', K.seq))
    local mx = tonumber(h.maxatt)
    if mx == 0 then mx = tonumber(rcall('HGET', K.config, 'maxatt') or '') or DEFAULT_MAX_ATTEMPTS end
    rcall('HSET', K.jobs, id, packRecord(now, mx, mx, g, h.payload))
    rcall('HINCRBY', K.stats, 'enqueued', 1)
    addLive(g, 1)
    rcall('ZADD', pendingKey(g), id, id)
    fixRing(g, before)
    if COST_Q and h.est ~= '0' then rcall('HSET', K.est, id, h.est) end
    if h.keepms ~= '0' or h.keeplast ~= '0' then rcall('HSET', okey('keep'), id, h.keepms .. ' ' .. h.keeplast) end
    Idem.lib().store(okey('idem'), okey('idemexp'), { key, id .. ' ' .. S(now + window) },
      { S(now + window), key }, now, 2)
    -- Which schedule and tick the job is (echomq_get_job), dropped lazily:
    -- each fire looks at the two oldest entries and drops those whose job is
    -- gone; one still alive goes to the back.
    for _, j in ipairs(rcall('ZRANGE', okey('sjobs'), 0, 1)) do
      if not Sc.place(j) then
        rcall('HDEL', okey('sjob'), j); rcall('ZREM', okey('sjobs'), j)
      else
        rcall('ZADD', okey('sjobs'), S(now), j)
      end
    end
    rcall('HSET', okey('sjob'), id, S(tick) .. ' ' .. name)
    rcall('ZADD', okey('sjobs'), S(now), id)
    if OUTCOMES and outcomeConf().enq then emit('enqueued', id, g, 0) end
    return id
  end
  -- One due schedule: the ticks due in [next, now] are handled as one (the
  -- latest of them fires, or is skipped), then it is armed for its first
  -- tick after now, or ends.
  local function fireOne(name, h, ok, now)
    if not ok then
      rcall('ZREM', okey('sdue'), name)  -- unreadable or not armed: verify reports it
      return
    end
    if tonumber(h.next) > now then  -- its score ran ahead of its hash
      rcall('ZADD', okey('sdue'), h.next, name)
      return
    end
    local s = T.timing(h)
    local tick, count = T.latest(s, tonumber(h.next), now)
    local reason
    local prev = h.overlap == 'skip' and Sc.place(h.fjob)
    if h.missed == 'skip' and now - tick > tonumber(h.grace) then
      reason = 'late'
    elseif prev == 'pending' or prev == 'leased' or prev == 'delayed' then
      reason = 'overlap'
    elseif laneFull(h.lane) then
      reason = 'full'
    end
    local nxt = T.next(s, math.max(now, tick))
    -- The key of the tick: held while its window is open, so a tick seen
    -- already (also by a re-created schedule) does not fire again.
    local key = 'sched:' .. name .. ':' .. S(tick)
    local window = math.min(math.max(2 * ((nxt or tick) - tick), 60000), DEDUP_WINDOW_DEFAULT_MS)
    if not reason and Idem.lib().held(okey('idem'), key, now) then reason = 'duplicate' end
    local runs, skips = tonumber(h.runs), tonumber(h.skips)
    local set = { 'last', S(tick), 'updated', S(now) }
    local skipped = reason and count or count - 1
    if not reason then
      local id = enqueueTick(name, h, tick, key, window, now)
      runs = runs + 1
      for _, v in ipairs({ 'ftick', S(tick), 'fat', S(now), 'fjob', id }) do set[#set + 1] = v end
      emit('fired', id, h.lane, 0, { 'schedule', name, 'tick', S(tick), 'late', S(now - tick) })
    end
    if skipped > 0 then
      skips = skips + skipped
      emit('skipped', '', h.lane, 0, { 'schedule', name, 'tick', S(tick), 'count', S(skipped),
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
    rcall('HSET', Sc.key(name), unpack(set))
  end
  -- Fires the schedules F.due read (their hashes as read then: nothing else
  -- in the call changes them); returns the next tick of the earliest armed
  -- schedule now (config `sched`, nil for none), part of the claim's next
  -- due time, so an idle engine's wait wakes for it (recover.lua, nextDue).
  function F.fire(due, now)
    for _, d in ipairs(due) do fireOne(d.name, d.h, d.ok, now) end
    return Sc.arm()
  end
  Fire.L = F
  return F
end
