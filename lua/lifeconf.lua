--[[ lifeconf: a queue's lifecycle settings (lua/includes/life.lua).
-- KEYS: seq ring gweight glimit gactive paused leases delayed lanes glive gserved stats config wake grate gbucket throttled gcap gdebt
-- ARGV (lua/args.txt, `lifeconf`), by mode:
--   timeout  ms: the queue's default time limit of a job's attempt,
--            1..TIMEOUT_MAX_MS ("0" clears)
--   qlimit   limit: jobs leased at once across all lanes, 1..LIMIT_MAX
--            ("0" clears)
--   qrate    jobs (1..RATE_JOBS_MAX, "0" clears), period ms
--            (1..RATE_PERIOD_MAX_MS), burst (0 = jobs): the queue-wide rate
--   get      nothing
-- Returns {OK} for a setting, with events on a `setting` entry;
-- {OK, a `lifeconf` row (lua/replies.txt)} for get; {EINVAL, msg}.
-- Keeps: I1-I3 untouched (no lane moves: the queue-wide gate applies at
-- the claim, lua/includes/qlimit.lua). A raised or cleared ceiling or rate
-- wakes a blocked claimer when there is work.
]]
--@include args
--@include qlimit
--@include emit

local A, bad = readArgs()
if not A then return bad end
local mode = A.mode
local v1, v2, v3
if mode == 'timeout' then
  v1 = argInt(A.ms, 0, TIMEOUT_MAX_MS)
  if not v1 then return { EINVAL, 'timeout: ms must be 0 (none) or 1..' .. S(TIMEOUT_MAX_MS) } end
elseif mode == 'qlimit' then
  v1 = argInt(A.limit, 0, LIMIT_MAX)
  if not v1 then return { EINVAL, 'queue limit: 0 (none) or 1..' .. S(LIMIT_MAX) .. ' expected' } end
elseif mode == 'qrate' then
  v1, v2, v3 = argInt(A.jobs, 0, RATE_JOBS_MAX), argInt(A.period, 1, RATE_PERIOD_MAX_MS), argInt(A.burst, 0, RATE_JOBS_MAX)
  if not v1 or not v2 or not v3 then
    return { EINVAL, 'queue rate: jobs 0..' .. S(RATE_JOBS_MAX) .. ', period 1..' .. S(RATE_PERIOD_MAX_MS) ..
      ' ms and burst 0..' .. S(RATE_JOBS_MAX) .. ' expected' }
  end
  if v3 == 0 then v3 = v1 end
end
local Q
Q, bad = readQueue()
if bad then return bad end
local now = serverNowMs()
if mode == 'get' then
  local out = { OK }  -- then a `lifeconf` row (lua/replies.txt: LIFECONF_FIELDS values)
  local G = Life.queueGate()
  local _, tok, due = rateState(G.rate, G.bucket, now)
  local r = G.rate or { 0, 0, 0 }
  out[1 + LIFECONF_DEFAULT_TIMEOUT_MS] = tonumber(rcall('HGET', K.config, 'timeout') or '0')
  out[1 + LIFECONF_QUEUE_LIMIT] = G.limit or 0
  out[1 + LIFECONF_RATE_JOBS] = r[1]
  out[1 + LIFECONF_RATE_PERIOD_MS] = r[2]
  out[1 + LIFECONF_RATE_BURST] = r[3]
  out[1 + LIFECONF_LEASED] = jobsIn(K.leases)
  out[1 + LIFECONF_TOKENS] = (G.rate or G.bucket) and string.format('%.3f', tok) or '-1'
  out[1 + LIFECONF_NEXT_TOKEN_AT] = due and S(due) or '0'
  return out
end
bad = typeGuard({ [K.config] = 'hash', [Life.key('qlimit')] = 'hash', [K.wake] = 'list', [K.ring] = 'list',
                  [okey('events')] = 'stream' })
if bad then return bad end
if mode == 'timeout' then
  if v1 > 0 then
    rcall('HSET', K.config, 'timeout', S(v1))
    Life.set(Q, 'timeouts', true)
  else
    rcall('HDEL', K.config, 'timeout')
    if rcall('EXISTS', Life.key('tmo')) == 0 then Life.set(Q, 'timeouts', false) end
  end
  if Q.outcomes then emit(Q, 'setting', '', '', 0, { 'setting', 'default timeout', 'value', A.ms }) end
  return { OK }
end
local key = Life.key('qlimit')
if mode == 'qlimit' then
  if v1 > 0 then rcall('HSET', key, 'limit', S(v1)) else rcall('HDEL', key, 'limit') end
  if Q.outcomes then emit(Q, 'setting', '', '', 0, { 'setting', 'queue limit', 'value', A.limit }) end
else
  if v1 > 0 then
    rcall('HSET', key, 'rate', S(v1) .. ' ' .. S(v2) .. ' ' .. S(v3))
  else
    rcall('HDEL', key, 'rate', 'bucket')
  end
  if Q.outcomes then
    emit(Q, 'setting', '', '', 0, { 'setting', 'queue rate', 'value', A.jobs .. ' ' .. A.period .. ' ' .. A.burst })
  end
end
Life.set(Q, 'qlimit', rcall('EXISTS', key) == 1)
-- A claimer blocked at the old ceiling may go on now.
if rcall('LLEN', K.ring) > 0 and rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
return { OK }
