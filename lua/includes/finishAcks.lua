--@include emit
--@include fin
--@include trimOutcomes
--@include wakeWaiters
--@include okey
-- The outcome side of acks, while the queue's `outcomes` flag is on (the
-- caller, settle, deletes the records after): each job acked (ids `done`,
-- results[id] its result or nil, drops[id] why its result was dropped or
-- nil) is retained as its own retention or the
-- queue's says (a job someone waits for at least WAIT_GRACE_MS), its
-- waiters are woken and a `completed` event is written; then expired
-- outcomes are trimmed (bounded), and the flag goes off once nothing is on
-- and no job carries outcome state. Runs after settle's first write: every
-- key it writes was type-checked before (outcomeKeys). atts: the jobs'
-- delivery states as settle read them.
local function finishAcks(Q, done, results, drops, now, atts)
  local c = outcomeConf(Q)
  -- The per-job hashes that hold nothing are neither read nor cleared.
  local there = {}
  for _, name in ipairs({ 'waiters', 'started', 'progress', 'keep' }) do
    there[name] = rcall('EXISTS', okey(name)) == 1
  end
  local function read(name) return there[name] and callSliced('HMGET', okey(name), done) or {} end
  local recs = callSliced('HMGET', K.jobs, done)
  local waits, starts, progs, keeps = read('waiters'), read('started'), read('progress'), read('keep')
  local base = tonumber(rcall('HGET', K.stats, 'kept') or '0')
  local fin, zd, zexp, zcnt, kept = {}, {}, {}, {}, 0
  for i = 1, #done do
    local id, rec = done[i], recs[i]
    local ms, n = c.ms, c.n
    if keeps[i] then
      local a, b = string.match(keeps[i], '^(%d+) (%d+)$')
      if a then
        ms, n = tonumber(a), tonumber(b)
        if ms == 0 then ms = nil end
        if n == 0 then n = nil end
      end
    end
    if waits[i] and (not ms or ms < WAIT_GRACE_MS) then ms = WAIT_GRACE_MS end
    local att, err, token, g = unpackAtt(atts[i])
    if rec and (ms or n) then
      local _, _, at, _, mx = unpackRecord(rec)
      fin[#fin + 1] = id
      fin[#fin + 1] = packFin(now, starts[i], att, token, at, mx, g or unpackRecord(rec), progs[i] or '', err,
        results[id] or '', drops[id])
      zd[#zd + 1] = S(now); zd[#zd + 1] = id
      kept = kept + 1
      if ms then zexp[#zexp + 1] = S(now + ms); zexp[#zexp + 1] = id end
      if n then zcnt[#zcnt + 1] = S(base + kept + n); zcnt[#zcnt + 1] = id end
    end
    wakeWaiters(id, waits[i])
    emit(Q, 'completed', id, g, att, drops[id] and { 'result_dropped', drops[id] })
  end
  if kept > 0 then
    rcall('HINCRBY', K.stats, 'kept', kept)
    callSliced('HSET', okey('fin'), fin)
    callSliced('ZADD', okey('done'), zd)
    if #zexp > 0 then callSliced('ZADD', okey('doneexp'), zexp) end
    if #zcnt > 0 then callSliced('ZADD', okey('donecnt'), zcnt) end
  end
  for _, name in ipairs({ 'waiters', 'started', 'progress', 'keep' }) do
    if there[name] then callSliced('HDEL', okey(name), done) end
  end
  trimOutcomes(now, RECOVER_MAX + kept)
  if not (c.ms or c.n or c.ev) and rcall('EXISTS', okey('waiters'), okey('keep'), okey('started'), okey('progress')) == 0 then
    rcall('HDEL', K.config, 'outcomes', 'keepjob')
  end
end
