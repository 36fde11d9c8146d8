--[[ outconf: a queue's outcome settings (docs/operations.md, "Outcomes").
-- KEYS: seq config started keep waiters progress events
-- ARGV (lua/args.txt, `outconf`), by mode: "retain", then keep ms
--   (0..KEEP_MAX_MS) and keep last (0..KEEP_LAST_MAX), not both 0; or
--   "noretain"; "events", then max length (1..EVENTS_MAXLEN_MAX) and
--   enqueued ("1" to write enqueues too, else "0"); or "noevents"; or
--   "get": only reads them: returns {OK, keep ms, keep last, events max
--   length, "1" when enqueues are events} ("0" for each one that is off)
-- Applies to jobs that finish from now on. Sets the config fields keepms,
-- keepn, events, evenq and the `outcomes` flag, which goes off when nothing
-- is on and no job carries outcome state.
-- Returns {OK} or {EINVAL, msg} (nothing written).
-- Keeps: I1-I3 untouched.
]]
--@include args
--@include emit
--@include typeGuard

local A, bad = readArgs()
if not A then return bad end
local what = A.mode
local set
if what == 'retain' then
  local ms, n = argInt(A.ms, 0, KEEP_MAX_MS), argInt(A.last, 0, KEEP_LAST_MAX)
  if not ms or not n or (ms == 0 and n == 0) then
    return { EINVAL, 'retention: keep ms 0..' .. KEEP_MAX_MS .. ' and keep last 0..' .. KEEP_LAST_MAX ..
      ', not both 0 (clear it instead)' }
  end
  set = { keepms = ms > 0 and S(ms) or false, keepn = n > 0 and S(n) or false }
elseif what == 'noretain' then
  set = { keepms = false, keepn = false }
elseif what == 'events' then
  local len = argInt(A.maxlen, 1, EVENTS_MAXLEN_MAX)
  if not len or (A.enqueued ~= '0' and A.enqueued ~= '1') then
    return { EINVAL, 'events: max length 1..' .. EVENTS_MAXLEN_MAX .. ', enqueues "0" or "1"' }
  end
  set = { events = S(len), evenq = A.enqueued == '1' and '1' or false }
elseif what == 'noevents' then
  set = { events = false, evenq = false }
end
local Q
Q, bad = readQueue()
bad = bad or typeGuard({ [K.config] = 'hash', [K.events] = 'stream' })
if bad then return bad end
if what == 'get' then
  local c = rcall('HMGET', K.config, 'keepms', 'keepn', 'events', 'evenq')
  return { OK, c[1] or '0', c[2] or '0', c[3] or '0', c[4] or '0' }
end
for f, v in pairs(set) do
  if v then rcall('HSET', K.config, f, v) else rcall('HDEL', K.config, f) end
end
local c = rcall('HMGET', K.config, 'keepms', 'keepn', 'events')
if c[1] or c[2] or c[3] or rcall('EXISTS', K.waiters, K.keep, K.started, K.progress) > 0 then
  rcall('HSET', K.config, 'outcomes', '1')
  Q.outcomes = '1'
else
  rcall('HDEL', K.config, 'outcomes')
end
if what == 'events' or what == 'noevents' then
  emit(Q, 'setting', '', '', 0, { 'setting', what, 'value', A.maxlen or '' })
end
return { OK }
