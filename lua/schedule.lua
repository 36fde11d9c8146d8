--[[ schedule: create or change a schedule, or remove, pause or resume one
-- (docs/operations.md, "Periodic jobs"; keys: lua/includes/sched.lua).
-- KEYS: seq gactive leases delayed glive gserved config wake jobs att
-- ARGV[1] key prefix "emq:{q}:"   ARGV[2] "upsert" | "remove" | "pause" | "resume"
-- ARGV[3] schedule name: 1..SCHEDULE_NAME_MAX bytes of [A-Za-z0-9_.:-]
-- upsert, then: kind ("every" | "cron"), every ms (1..SCHEDULE_EVERY_MAX_MS;
--   "0" for cron), cron as written, cron canonical (lua/includes/ticks.lua;
--   "" for every), zone name, zone rules, lane, payload, max attempts
--   (0..ATTEMPTS_MAX, 0 = the queue's default when it fires), keep ms, keep
--   last (0..KEEP_MAX_MS, 0..KEEP_LAST_MAX), cost estimate (0..ID_MAX),
--   start, end (server ms, 0 = none), limit (runs, 0 = none), missed
--   (MISSED_FIRE_ONCE | MISSED_SKIP), grace ms (0..DELAY_MAX_MS), overlap
--   (OVERLAP_FIRE | OVERLAP_SKIP).
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
--@include sched
--@include marks
--@include typeGuard

local verb, name = ARGV[2], ARGV[3]
if type(name) ~= 'string' or #name < 1 or #name > SCHEDULE_NAME_MAX or string.find(name, '[^%w_.:%-]') then
  return { EINVAL, 'schedule: a name is 1..' .. SCHEDULE_NAME_MAX .. ' bytes of [A-Za-z0-9_.:-]' }
end
local function refuse(msg) return { EINVAL, 'schedule ' .. name .. ': ' .. msg } end
local Sc = Sched.lib()
local T = Sc.ticks
-- A claimer asleep on the server (a worker engine, a blocking claim) waits
-- until its last next due time, which knew nothing of a tick armed now:
-- one wake-up token makes one of them claim again and learn it.
local function wakeOne()
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
local spec, h
if verb == 'upsert' then
  if #ARGV ~= 21 then return refuse('argument count does not match') end
  local a = {}
  for i = 4, 21 do a[#a + 1] = ARGV[i] end
  h = { kind = a[1], cron = a[3], cronx = a[4], zone = a[5], tzr = a[6], lane = a[7], payload = a[8] }
  local nums = { { 'every', 2, 0, SCHEDULE_EVERY_MAX_MS }, { 'maxatt', 9, 0, ATTEMPTS_MAX },
                 { 'keepms', 10, 0, KEEP_MAX_MS }, { 'keeplast', 11, 0, KEEP_LAST_MAX }, { 'est', 12, 0, ID_MAX },
                 { 'start', 13, 0, ID_MAX }, { 'end', 14, 0, ID_MAX }, { 'limit', 15, 0, ID_MAX },
                 { 'missed', 16, MISSED_FIRE_ONCE, MISSED_SKIP }, { 'grace', 17, 0, DELAY_MAX_MS },
                 { 'overlap', 18, OVERLAP_FIRE, OVERLAP_SKIP } }
  for _, f in ipairs(nums) do
    if not argInt(a[f[2]], f[3], f[4]) then return refuse(f[1] .. ' must be ' .. S(f[3]) .. '..' .. S(f[4])) end
    h[f[1]] = a[f[2]]
  end
  -- Policies are kept as words (lua/includes/sched.lua).
  h.missed = h.missed + 0 == MISSED_SKIP and 'skip' or 'once'
  h.overlap = h.overlap + 0 == OVERLAP_SKIP and 'skip' or 'fire'
  if h.kind == 'every' then
    if h.every == '0' then return refuse('every must be at least 1 ms') end
    if h.cronx ~= '' then return refuse('every and cron exclude each other') end
  elseif h.kind == 'cron' then
    if h.every ~= '0' then return refuse('every and cron exclude each other') end
    if not T.cron(h.cronx) then return refuse('bad canonical cron "' .. h.cronx .. '"') end
    if not T.zone(h.tzr) then return refuse('bad zone rules for ' .. h.zone) end
  else
    return refuse('kind must be every or cron')
  end
  local g = h.lane
  if #g < 1 or #g > GROUP_NAME_MAX or string.find(g, '%c') then return refuse('bad lane name') end
  local why = laneNameProblem(g)
  if why then return refuse(why) end
  if h['end'] ~= '0' and h['end'] + 0 <= h.start + 0 then return refuse('its end is not after its start') end
  -- Equal specs are equal strings (each part with its length), kept as
  -- their SHA1: short values keep the hash a listpack (docs/keys.md).
  local parts, tparts = {}, {}
  for i, v in ipairs(a) do
    if i ~= 6 then parts[#parts + 1] = #v .. ':' .. v end
  end
  for _, i in ipairs({ 1, 2, 4, 5, 13 }) do tparts[#tparts + 1] = #a[i] .. ':' .. a[i] end
  h.spec, h.tspec = redis.sha1hex(table.concat(parts, ',')), redis.sha1hex(table.concat(tparts, ','))
  spec = h
elseif verb ~= 'remove' and verb ~= 'pause' and verb ~= 'resume' then
  return { EINVAL, 'schedule: unknown verb' }
end
local bad = layoutError()
if bad then return bad end
local want = { [Sc.key(name)] = 'hash', [okey('sdue')] = 'zset', [okey('sdir')] = 'zset' }
for _, k in ipairs({ 'config', 'wake', 'leases', 'delayed', 'gactive', 'glive', 'gserved', 'att' }) do  -- and the marks
  want[K[k]] = KEY_TYPES[k]
end
bad = typeGuard(want)
if bad then return bad end
local now = serverNowMs()
local old = Sc.read(name)
local exists = old.spec ~= nil

if verb ~= 'upsert' then
  if not exists then return { ENOTFOUND, 'schedule ' .. name .. ' not found' } end
  if verb == 'remove' then
    rcall('DEL', Sc.key(name))
    rcall('ZREM', okey('sdue'), name)
    rcall('ZREM', okey('sdir'), name)
  elseif verb == 'pause' then
    rcall('ZREM', okey('sdue'), name)
    rcall('HSET', Sc.key(name), 'paused', '1', 'updated', S(now))
  elseif old.paused then
    rcall('HDEL', Sc.key(name), 'paused')
    rcall('HSET', Sc.key(name), 'updated', S(now))
    local s = not old.ended and T.timing(old)
    local nxt = s and T.next(s, math.max(now, tonumber(old.last or '0') or 0))
    if nxt then
      rcall('HSET', Sc.key(name), 'next', S(nxt))
      rcall('ZADD', okey('sdue'), S(nxt), name)
      wakeOne()
    end
  end
  Sc.arm()
  return { OK }
end

-- Upsert. The same spec changes nothing (ten processes upserting at boot
-- leave one schedule, armed as the first left it).
if exists and old.spec == spec.spec then
  if old.tzr ~= spec.tzr then rcall('HSET', Sc.key(name), 'tzr', spec.tzr) end
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
  -- An every grid starts at its start, else one period after now.
  spec.anchor = spec.kind == 'every' and S(spec.start ~= '0' and spec.start + 0 or now + spec.every) or ''
  local s = T.timing(spec)
  local last = tonumber(old.last or '') or -1
  -- The first tick at or after now (a past start fires no tick before now).
  nxt = T.next(s, math.max(now - 1, last))
  if not nxt then return refuse('it never fires (no tick after now' .. (spec['end'] ~= '0' and ' before its end)' or ')')) end
  nxt = S(nxt)
  set[#set + 1] = 'anchor'; set[#set + 1] = spec.anchor
end
local runs = tonumber(old.runs or '0')
local ended = spec.limit ~= '0' and runs >= spec.limit + 0 and 'limit' or nil
set[#set + 1] = 'next'; set[#set + 1] = nxt or ''
set[#set + 1] = 'updated'; set[#set + 1] = S(now)
if not exists then
  for _, v in ipairs({ 'created', S(now), 'runs', '0', 'skips', '0', 'last', '' }) do set[#set + 1] = v end
end
rcall('HSET', Sc.key(name), unpack(set))
if ended then
  rcall('HSET', Sc.key(name), 'ended', ended)
  rcall('ZREM', okey('sdue'), name)
else
  rcall('HDEL', Sc.key(name), 'ended')
  if not old.paused and nxt then
    rcall('ZADD', okey('sdue'), nxt, name)
    if rearm then wakeOne() end
  end
end
rcall('ZADD', okey('sdir'), 0, name)
-- The marks a claim's keys keep (lua/includes/marks.lua): enqueue writes
-- them, and a queue may get its jobs from schedules only.
markKeys()
-- The queue's fields: its earliest tick (the one a claim reads); a tenant's lane turns the tenant paths
-- on (lua/enqueue.lua); a job's own retention turns outcomes on.
Sc.arm()
rcall('HSET', K.config, 'layout', KEY_LAYOUT)
if tenantOf(spec.lane) then rcall('HSET', K.config, 'tenants', '1') end
if spec.keepms ~= '0' or spec.keeplast ~= '0' then rcall('HSET', K.config, 'outcomes', '1', 'keepjob', '1') end
return { OK, exists and 2 or 1, nxt or -1 }
