--@include args
--@include record
--@include lifeEnqueue
-- The arguments of an enqueue (lua/args.txt, `enqueue`; what they hold:
-- lua/enqueue.lua), checked before any read. Returns E, the call: delay,
-- maxatt (0 = the queue default), n jobs (groups[i], payloads[i]), keys
-- (the idempotency key of each job, "" = none, or nil without the option)
-- with their window, keep (the jobs' own retention, "ms last", or nil) and
-- estimate (cost units, or nil), at (a due time, server ms, or nil), life
-- (a time limit and start deadline, or nil: lua/includes/lifeEnqueue.lua),
-- meta (each job's name and headers as the core encoded them, "" = none, or
-- nil without the option).
-- Or nil and {EINVAL, msg}.
local function enqueueCall()
  local A, bad = readArgs()
  if not A then return nil, bad end
  local delay, maxatt = argInt(A.delay, 0, DELAY_MAX_MS), argInt(A.max_attempts, 0, ATTEMPTS_MAX)
  local jobs = A.jobs
  if not delay or not maxatt or jobs.n < 1 then return nil, { EINVAL, 'enqueue: bad delay, max attempts or count' } end
  for i = 1, jobs.n do
    if #jobs.group[i] == 0 then return nil, { EINVAL, 'enqueue: empty group name' } end
  end
  local E = { delay = delay, maxatt = maxatt, n = jobs.n, groups = jobs.group, payloads = jobs.payload }
  if A.keys then
    E.window = argInt(A.keys.window, 1, DEDUP_WINDOW_MAX_MS)
    if not E.window then return nil, { EINVAL, 'enqueue: bad dedup window' } end
    E.keys = A.keys.key
    for i = 1, jobs.n do
      if #E.keys[i] > DEDUP_KEY_MAX then
        return nil, { EINVAL, 'enqueue: idempotency key longer than ' .. DEDUP_KEY_MAX .. ' bytes' }
      end
    end
  end
  if A.keep then
    local ms, last = argInt(A.keep.ms, 0, KEEP_MAX_MS), argInt(A.keep.last, 0, KEEP_LAST_MAX)
    if not ms or not last or (ms == 0 and last == 0) then return nil, { EINVAL, 'enqueue: bad retention' } end
    E.keep = S(ms) .. ' ' .. S(last)
  end
  if A.est then
    E.estimate = argInt(A.est.units, 1, ID_MAX)
    if not E.estimate then return nil, { EINVAL, 'enqueue: bad cost estimate' } end
  end
  if A.at then
    E.at = argInt(A.at.ms, 0, ID_MAX)
    if not E.at or delay > 0 then return nil, { EINVAL, 'enqueue: bad due time (at)' } end
  end
  if A.meta then  -- each job's name and headers, opaque (lua/includes/record.lua)
    E.meta = A.meta.meta
    for i = 1, jobs.n do
      local m = E.meta[i]
      if #m > JOB_META_MAX or string.find(m, '[%z\1-\8\11-\31\127]') then
        return nil, { EINVAL, 'enqueue: bad job name or headers (at most ' .. JOB_META_MAX .. ' bytes, no control character)' }
      end
    end
  end
  if A.life then  -- a time limit, a start deadline (lua/includes/lifeEnqueue.lua)
    local bad
    E.life, bad = Life.enqueueArgs(A.life)
    if not E.life then return nil, bad end
  end
  return E
end
