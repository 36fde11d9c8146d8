--[[ rate: a lane's rate limit (a token bucket on server time), the queue
-- default, or a hand-set throttle of a lane (a worker told to back off).
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `rate`), by mode:
--   lane     group, jobs 1..RATE_JOBS_MAX (0 = clear), period ms
--            1..RATE_PERIOD_MAX_MS, burst 1..RATE_JOBS_MAX (0 = jobs)
--   default  jobs, period, burst: the queue default, as a lane's
--   throttle group, ms 1..DELAY_MAX_MS: no job of the lane before now + ms
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1 — a lane with a token now stays in the ring; one without leaves
-- it and waits in `throttled` until its next token (or the throttle's end)
-- is due, then rejoins at the next claim. Clearing applies at once.
]]
--@include args
--@include setting

local A, bad = readArgs()
if not A then return bad end
local mode, g = A.mode, A.group or ''
if mode ~= 'default' and #g == 0 then return { EINVAL, 'rate: bad mode or group' } end
local jobs, per, burst, ms
if mode == 'throttle' then
  ms = argInt(A.ms, 1, DELAY_MAX_MS)
  if not ms then return { EINVAL, 'throttle: ms must be 1..' .. S(DELAY_MAX_MS) } end
else
  jobs = argInt(A.jobs, 0, RATE_JOBS_MAX)
  per = argInt(A.period, 1, RATE_PERIOD_MAX_MS)
  burst = argInt(A.burst, 0, RATE_JOBS_MAX)
  if not jobs or not per or not burst then
    return { EINVAL, 'rate: jobs 0..' .. S(RATE_JOBS_MAX) .. ', period 1..' .. S(RATE_PERIOD_MAX_MS) ..
      ' ms and burst 0..' .. S(RATE_JOBS_MAX) .. ' expected' }
  end
  if burst == 0 then burst = jobs end
end
local Q
Q, bad = settingQueue(#g > 0 and { g } or nil, g, ms and 'throttle' or 'rate',
  ms and A.ms or (A.jobs .. ' ' .. A.period .. ' ' .. A.burst))
if not Q then return bad end
local now = serverNowMs()

if mode == 'throttle' then
  local before = laneState(g)
  local b = rcall('HGET', K.gbucket, g)
  local tok = 0
  if b then tok = tonumber(string.match(b, '^(%-?[%d.]+)')) or 0 end
  rcall('HSET', K.gbucket, g, packBucket(math.min(tok, 0), now + ms))
  rcall('ZADD', K.lanes, 'NX', 0, g)
  fixRing(Q, g, before)
  return { OK }
end
if mode == 'default' then
  if jobs == 0 then rcall('HDEL', K.grate, '') else rcall('HSET', K.grate, '', S(jobs) .. ' ' .. S(per) .. ' ' .. S(burst)) end
  -- A lane with a token keeps it; the lanes that wait for one are exactly
  -- those in `throttled`: look at them again (clearing frees them at once).
  for _, w in ipairs(rcall('ZRANGE', K.throttled, 0, -1)) do
    if rcall('HEXISTS', K.grate, w) == 0 then fixRing(Q, w, 'wait') end
  end
  return { OK }
end
local before = laneState(g)
if jobs == 0 then
  rcall('HDEL', K.grate, g)
  rcall('HDEL', K.gbucket, g)
else
  rcall('HSET', K.grate, g, S(jobs) .. ' ' .. S(per) .. ' ' .. S(burst))
  rcall('ZADD', K.lanes, 'NX', 0, g)
end
fixRing(Q, g, before)
if jobs == 0 and tonumber(rcall('HGET', K.glive, g) or '0') <= 0 then forgetIdleLane(g) end
return { OK }
