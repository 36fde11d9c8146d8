--[[ schedule: create or change a schedule, or remove, pause or resume one
-- (docs/operations.md, "Periodic jobs"; keys: lua/includes/sched.lua).
-- KEYS: seq gactive leases delayed glive gserved config wake jobs att
-- ARGV (lua/args.txt, `schedule/<mode>`): every mode names the schedule
--   (1..SCHEDULE_NAME_MAX bytes of [A-Za-z0-9_.:-]); upsert then: kind
--   ("every" | "cron"), every ms (1..SCHEDULE_EVERY_MAX_MS; "0" for cron),
--   cron as written, cron canonical (lua/includes/ticks.lua; "" for every),
--   zone name, zone rules, lane, payload, max attempts (0..ATTEMPTS_MAX, 0 =
--   the queue's default when it fires), keep ms, keep last (0..KEEP_MAX_MS,
--   0..KEEP_LAST_MAX), cost estimate (0..ID_MAX), start, end (server ms, 0 =
--   none), limit (runs, 0 = none), missed (MISSED_FIRE_ONCE | MISSED_SKIP),
--   grace ms (0..DELAY_MAX_MS), overlap (OVERLAP_FIRE | OVERLAP_SKIP).
-- Returns {OK, changed, next tick ms or -1}: changed 0 = the same spec was
-- there (nothing changed but, when they differ, the zone's rules), 1 =
-- created, 2 = changed. A change of the timing (kind, every, cron, zone,
-- start) re-arms the schedule at its first tick after now (and after its
-- last tick handled: a tick never fires twice); any other change keeps its
-- next tick. remove, pause, resume: {OK} or {ENOTFOUND, msg}; resume arms
-- it at its first tick after now (the ticks of the pause do not fire).
-- {EINVAL, msg} (a spec that never fires among them), {ELAYOUT, msg}:
-- nothing changed.
]]
--@include args
--@include sched
--@include marks
--@include typeGuard

-- A claimer asleep on the server (a worker engine, a blocking claim) waits
-- until its last next due time, which knew nothing of a tick armed now:
-- one wake-up token makes one of them claim again and learn it.
local function wakeOne()
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
local function refusal(name, msg) return { EINVAL, 'schedule ' .. name .. ': ' .. msg } end
-- An upsert's spec as the hash fields (lua/includes/sched.lua), checked
-- before any read; or nil and the refusal.
local function upsertSpec(A, name)
  local a = { A.kind, A.every, A.cron, A.cronx, A.zone, A.rules, A.lane, A.payload, A.max_attempts, A.keep_ms,
              A.keep_last, A.est, A.start_at, A.end_at, A.limit, A.missed, A.grace, A.overlap }
  local h = { kind = a[1], cron = a[3], cronx = a[4], zone = a[5], tzr = a[6], lane = a[7], payload = a[8] }
  local nums = { { 'every', 2, 0, SCHEDULE_EVERY_MAX_MS }, { 'maxatt', 9, 0, ATTEMPTS_MAX },
                 { 'keepms', 10, 0, KEEP_MAX_MS }, { 'keeplast', 11, 0, KEEP_LAST_MAX }, { 'est', 12, 0, ID_MAX },
                 { 'start', 13, 0, ID_MAX }, { 'end', 14, 0, ID_MAX }, { 'limit', 15, 0, ID_MAX },
                 { 'missed', 16, MISSED_FIRE_ONCE, MISSED_SKIP }, { 'grace', 17, 0, DELAY_MAX_MS },
                 { 'overlap', 18, OVERLAP_FIRE, OVERLAP_SKIP } }
  for _, f in ipairs(nums) do
    if not argInt(a[f[2]], f[3], f[4]) then return nil, refusal(name, f[1] .. ' must be ' .. S(f[3]) .. '..' .. S(f[4])) end
    h[f[1]] = a[f[2]]
  end
  -- Policies are kept as words (lua/includes/sched.lua).
  h.missed = h.missed + 0 == MISSED_SKIP and 'skip' or 'once'
  h.overlap = h.overlap + 0 == OVERLAP_SKIP and 'skip' or 'fire'
  local why
  if h.kind == 'every' then
    why = (h.every == '0' and 'every must be at least 1 ms') or (h.cronx ~= '' and 'every and cron exclude each other')
  elseif h.kind == 'cron' then
    why = (h.every ~= '0' and 'every and cron exclude each other')
      or (not Ticks.cron(h.cronx) and 'bad canonical cron "' .. h.cronx .. '"')
      or (not Ticks.zone(h.tzr) and 'bad zone rules for ' .. h.zone)
  else
    why = 'kind must be every or cron'
  end
  local g = h.lane
  if not why and (#g < 1 or #g > GROUP_NAME_MAX or string.find(g, '%c')) then why = 'bad lane name' end
  why = why or laneNameProblem(g)
  if not why and h['end'] ~= '0' and h['end'] + 0 <= h.start + 0 then why = 'its end is not after its start' end
  if why then return nil, refusal(name, why) end
  -- Equal specs are equal strings (each part with its length), kept as
  -- their SHA1: short values keep the hash a listpack (docs/keys.md).
  local parts, tparts = {}, {}
  for i, v in ipairs(a) do
    if i ~= 6 then parts[#parts + 1] = #v .. ':' .. v end
  end
  for _, i in ipairs({ 1, 2, 4, 5, 13 }) do tparts[#tparts + 1] = #a[i] .. ':' .. a[i] end
  h.spec, h.tspec = redis.sha1hex(table.concat(parts, ',')), redis.sha1hex(table.concat(tparts, ','))
  return h
end
-- Every key the call may write holds its type: a typeGuard reply, or nil.
local function scheduleGuard(name)
  local want = { [Sched.key(name)] = 'hash', [okey('sdue')] = 'zset', [okey('sdir')] = 'zset' }
  for _, k in ipairs({ 'config', 'wake', 'leases', 'delayed', 'gactive', 'glive', 'gserved', 'att' }) do  -- and the marks
    want[K[k]] = KEY_TYPES[k]
  end
  return typeGuard(want)
end
-- remove, pause, resume of schedule `name` (its hash old).
local function changeState(mode, name, old, now)
  if not old.spec then return { ENOTFOUND, 'schedule ' .. name .. ' not found' } end
  local key = Sched.key(name)
  if mode == 'remove' then
    callSliced('HDEL', key, rcall('HKEYS', key))  -- (not DEL: the operator's ACL, docs/operations.md)
    rcall('ZREM', okey('sdue'), name)
    rcall('ZREM', okey('sdir'), name)
  elseif mode == 'pause' then
    rcall('ZREM', okey('sdue'), name)
    rcall('HSET', key, 'paused', '1', 'updated', S(now))
  elseif old.paused then
    rcall('HDEL', key, 'paused')
    rcall('HSET', key, 'updated', S(now))
    local s = not old.ended and Ticks.timing(old)
    local nxt = s and Ticks.next(s, math.max(now, tonumber(old.last or '0') or 0))
    if nxt then
      rcall('HSET', key, 'next', S(nxt))
      rcall('ZADD', okey('sdue'), S(nxt), name)
      wakeOne()
    end
  end
  Sched.arm()
  return { OK }
end
-- The next tick of a spec (re)armed now, after the last tick old handled
-- (a past start fires no tick before now); nil when it never fires.
local function firstTick(spec, old, now)
  -- An every grid starts at its start, else one period after now.
  spec.anchor = spec.kind == 'every' and S(spec.start ~= '0' and spec.start + 0 or now + spec.every) or ''
  local last = tonumber(old.last or '') or -1
  local nxt = Ticks.next(Ticks.timing(spec), math.max(now - 1, last))
  return nxt and S(nxt)
end
-- Writes schedule `name` (spec over its hash old) and arms it; the reply.
local function upsert(name, spec, old, now)
  local exists = old.spec ~= nil
  -- The same spec changes nothing (ten processes upserting at boot leave
  -- one schedule, armed as the first left it).
  if exists and old.spec == spec.spec then
    if old.tzr ~= spec.tzr then rcall('HSET', Sched.key(name), 'tzr', spec.tzr) end
    return { OK, 0, old.next ~= '' and old.next or -1 }
  end
  local set = {}
  for _, f in ipairs({ 'kind', 'every', 'cron', 'cronx', 'zone', 'tzr', 'lane', 'payload', 'maxatt', 'keepms',
                       'keeplast', 'est', 'start', 'end', 'limit', 'missed', 'grace', 'overlap', 'spec', 'tspec' }) do
    set[#set + 1] = f; set[#set + 1] = spec[f]
  end
  local nxt = old.next ~= '' and old.next or nil
  local rearm = not exists or old.tspec ~= spec.tspec or old.ended
  if rearm then
    nxt = firstTick(spec, old, now)
    if not nxt then
      return refusal(name, 'it never fires (no tick after now' .. (spec['end'] ~= '0' and ' before its end)' or ')'))
    end
    set[#set + 1] = 'anchor'; set[#set + 1] = spec.anchor
  end
  local ended = spec.limit ~= '0' and tonumber(old.runs or '0') >= spec.limit + 0 and 'limit' or nil
  for _, v in ipairs({ 'next', nxt or '', 'updated', S(now) }) do set[#set + 1] = v end
  if not exists then
    for _, v in ipairs({ 'created', S(now), 'runs', '0', 'skips', '0', 'last', '' }) do set[#set + 1] = v end
  end
  rcall('HSET', Sched.key(name), unpack(set))
  if ended then
    rcall('HSET', Sched.key(name), 'ended', ended)
    rcall('ZREM', okey('sdue'), name)
  else
    rcall('HDEL', Sched.key(name), 'ended')
    if not old.paused and nxt then
      rcall('ZADD', okey('sdue'), nxt, name)
      if rearm then wakeOne() end
    end
  end
  rcall('ZADD', okey('sdir'), 0, name)
  -- The marks a claim's keys keep (lua/includes/marks.lua): enqueue writes
  -- them, and a queue may get its jobs from schedules only.
  markKeys()
  -- The queue's fields: its earliest tick (the one a claim reads); a
  -- tenant's lane turns the tenant paths on (lua/includes/enqueueWrite.lua);
  -- a job's own retention turns outcomes on.
  Sched.arm()
  rcall('HSET', K.config, 'layout', KEY_LAYOUT)
  if tenantOf(spec.lane) then rcall('HSET', K.config, 'tenants', '1') end
  if spec.keepms ~= '0' or spec.keeplast ~= '0' then rcall('HSET', K.config, 'outcomes', '1', 'keepjob', '1') end
  return { OK, exists and 2 or 1, nxt or -1 }
end

local A, bad = readArgs()
if not A then return bad end
local name = A.name
if #name < 1 or #name > SCHEDULE_NAME_MAX or string.find(name, '[^%w_.:%-]') then
  return { EINVAL, 'schedule: a name is 1..' .. SCHEDULE_NAME_MAX .. ' bytes of [A-Za-z0-9_.:-]' }
end
local spec
if A.mode == 'upsert' then
  spec, bad = upsertSpec(A, name)
  if not spec then return bad end
end
bad = layoutError() or scheduleGuard(name)
if bad then return bad end
local now = serverNowMs()
local old = Sched.read(name)
if A.mode ~= 'upsert' then return changeState(A.mode, name, old, now) end
return upsert(name, spec, old, now)
