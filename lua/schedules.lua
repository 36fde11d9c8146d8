#!lua flags=no-writes
--[[ schedules: a queue's schedules and their next ticks (read-only;
-- keys: lua/includes/sched.lua).
-- KEYS: seq leases delayed config jobs
-- ARGV (lua/args.txt, `schedules/<mode>`):
--   page: after (a name; "" = from the start), count 1..SCHEDULE_LIST_MAX:
--   the schedules named after it, in byte order;
--   one: name;
--   next: name, count 1..SCHEDULE_NEXT_MAX: its next ticks (server ms):
--   from its armed next tick, or for a paused one from when a resume now
--   would arm it; fewer past its end or its limit of runs, none once it
--   ended.
-- Returns {OK, n, n `schedule` rows (lua/replies.txt)} for page and one
-- (one: ENOTFOUND when there is none), {OK, n, n times} for next;
-- {EINVAL, msg}.
]]
--@include args
--@include sched

local out = { OK, 0 }
-- Appends the `schedule` row of schedule `name` (its hash h).
local function row(name, h)
  local o = #out
  out[o + SCHEDULE_NAME] = name
  out[o + SCHEDULE_KIND] = h.kind or ''
  out[o + SCHEDULE_EVERY] = h.every or '0'
  out[o + SCHEDULE_CRON] = h.cron or ''
  out[o + SCHEDULE_ZONE] = h.zone or ''
  out[o + SCHEDULE_LANE] = h.lane or ''
  out[o + SCHEDULE_PAYLOAD] = h.payload or ''
  out[o + SCHEDULE_MAX_ATTEMPTS] = h.maxatt or '0'
  out[o + SCHEDULE_KEEP_MS] = h.keepms or '0'
  out[o + SCHEDULE_KEEP_LAST] = h.keeplast or '0'
  out[o + SCHEDULE_COST_ESTIMATE] = h.est or '0'
  out[o + SCHEDULE_START_AT] = h.start or '0'
  out[o + SCHEDULE_END_AT] = h['end'] or '0'
  out[o + SCHEDULE_LIMIT] = h.limit or '0'
  out[o + SCHEDULE_MISSED] = h.missed == 'skip' and MISSED_SKIP or MISSED_FIRE_ONCE
  out[o + SCHEDULE_GRACE_MS] = h.grace or '0'
  out[o + SCHEDULE_OVERLAP] = h.overlap == 'skip' and OVERLAP_SKIP or OVERLAP_FIRE
  out[o + SCHEDULE_PAUSED] = h.paused and 1 or 0
  out[o + SCHEDULE_ENDED] = h.ended or ''
  out[o + SCHEDULE_NEXT_AT] = (h.next ~= nil and h.next ~= '' and not h.ended) and h.next or '0'
  out[o + SCHEDULE_LAST_TICK] = (h.last ~= nil and h.last ~= '') and h.last or '0'
  out[o + SCHEDULE_FIRED_TICK] = h.ftick or '0'
  out[o + SCHEDULE_FIRED_AT] = h.fat or '0'
  out[o + SCHEDULE_FIRED_JOB] = h.fjob or '0'
  local places = { pending = JOB_PENDING, leased = JOB_LEASED, delayed = JOB_DELAYED, dead = JOB_DEAD,
                   completed = JOB_COMPLETED }
  out[o + SCHEDULE_FIRED_STATE] = places[Sched.place(h.fjob) or ''] or 0
  out[o + SCHEDULE_RUNS] = h.runs or '0'
  out[o + SCHEDULE_SKIPS] = h.skips or '0'
  out[o + SCHEDULE_CREATED_AT] = h.created or '0'
  out[o + SCHEDULE_UPDATED_AT] = h.updated or '0'
  out[2] = out[2] + 1
end

-- The next `count` ticks of schedule h (after the first checks).
local function nextTicks(h, count)
  local n = argInt(count, 1, SCHEDULE_NEXT_MAX)
  if not n then return { EINVAL, 'schedules: n must be 1..' .. SCHEDULE_NEXT_MAX } end
  local s = Ticks.timing(h)
  if not s or h.ended then return out end
  local limit, runs = tonumber(h.limit or '0') or 0, tonumber(h.runs or '0') or 0
  if limit > 0 then n = math.min(n, math.max(limit - runs, 0)) end
  local t = tonumber(h.next or '')
  if h.paused or not t then t = Ticks.next(s, math.max(serverNowMs(), tonumber(h.last or '') or 0)) end
  while t and out[2] < n do
    out[#out + 1] = S(t)
    out[2] = out[2] + 1
    t = Ticks.next(s, t)
  end
  return out
end

local A, bad = readArgs()
if not A then return bad end
local arg = A.mode == 'page' and A.after or A.name
if #arg > SCHEDULE_NAME_MAX then return { EINVAL, 'schedules: bad name' } end
bad = layoutError()
if bad then return bad end
if A.mode == 'page' then
  local count = argInt(A.count, 1, SCHEDULE_LIST_MAX)
  if not count then return { EINVAL, 'schedules: count must be 1..' .. SCHEDULE_LIST_MAX } end
  local names = rcall('ZRANGEBYLEX', okey('sdir'), arg == '' and '-' or '(' .. arg, '+', 'LIMIT', 0, count)
  for _, name in ipairs(names) do row(name, Sched.read(name)) end
  return out
end
local h = Sched.read(arg)
if not h.spec then return { ENOTFOUND, 'schedule ' .. arg .. ' not found' } end
if A.mode == 'one' then
  row(arg, h)
  return out
end
return nextTicks(h, A.count)
