--@include counts
--@include cancelHeld
--@include timeLimit
-- The lifecycle on the claim path (lua/take.lua; docs/architecture.md,
-- "Lifecycle"), each step only while its feature is on (Q.cancels,
-- Q.timeouts, Q.expiry; the queue-wide gate: lua/includes/qlimit.lua).
-- Before the first write (takeReads): the queue's default time limit, the
-- start deadlines due now (at most RECOVER_MAX: due.expired; C.moreExpired
-- when there may be more), and the keys the rare paths write, type-checked
-- with the rest (`checked`).
function Life.takeReads(Q, C, due, checked, now)
  if Q.qlimit then  -- lua/includes/qlimit.lua: the gate; its bucket, a wake-up when slots free
    local G = Life.queueGate()
    C.gate = G
    if G.rate or G.bucket then checked[P .. 'qlimit'] = 'hash' end
    -- Only settlements that find the queue at its ceiling may owe a wake-up
    -- (Life.queueAfter): the keys it touches are checked only then.
    if G.limit then G.before = jobsIn(K.leases) end
    if (C.acks.n > 0 or C.fails.n > 0) and G.limit and G.before >= G.limit then
      checked[K.wake] = 'list'; checked[K.ring] = 'list'
    end
  end
  if Q.burst then  -- lua/includes/burstRing.lua: lanes move between the rings
    checked[P .. 'bring'] = 'list'; checked[P .. 'gburst'] = 'hash'
    for _, name in ipairs({ 'ring', 'wake', 'throttled', 'paused', 'glimit', 'grate', 'gbucket' }) do
      checked[K[name]] = KEY_TYPES[name]
    end
  end
  if Q.timeouts then
    if C.n > 0 then C.tmo = tonumber(rcall('HGET', K.config, 'timeout') or '') or false end
    if C.acks.n > 0 then checked[P .. 'tmo'] = 'hash' end
  end
  if not due then return end
  local rare = Q.cancels and #due.leases > 0
  if Q.expiry then
    due.expired = rcall('ZRANGEBYSCORE', P .. 'expiry', '-inf', S(now), 'LIMIT', 0, RECOVER_MAX)
    C.moreExpired = #due.expired == RECOVER_MAX
    if #due.expired > 0 then
      rare = true
      for name, key in pairs(K) do checked[key] = KEY_TYPES[name] end
      for _, rec in ipairs(callSliced('HMGET', K.jobs, due.expired)) do
        if rec then laneKeyTypes((unpackRecord(rec)), checked) end
      end
    end
  end
  if rare then
    Life.keyTypes(checked)
    for _, name in ipairs(OUTCOME_KEYS) do checked[okey(name)] = KEY_TYPES[name] end
  end
end
-- The recovery step: jobs whose start deadline passed leave the place they
-- wait in (their lane, or the delayed set) and die "expired" (or are
-- removed, when their enqueue asked: `xdrop`), through the one place a job
-- is canceled (Life.cancel); an entry of a job that started or is gone just
-- goes. Returns true when more may be due than one call removes: the call
-- then claims nothing and says "more due now", so no claim ever takes a job
-- whose deadline passed (the client calls again at once).
function Life.expireDue(Q, C, due, now)
  for _, id in ipairs(due.expired) do
    local rec = rcall('HGET', K.jobs, id)
    local g = rec and unpackRecord(rec)
    local waiting = false
    if g and rcall('ZREM', K.delayed, id) == 1 then
      waiting = true
    elseif g and rcall('ZSCORE', pendingKey(g), id) then
      local before = laneState(g)
      rcall('ZREM', pendingKey(g), id)
      fixRing(Q, g, before)
      waiting = true
    end
    if waiting then
      Life.cancel(Q, id, g, 'expired', 'expired', rcall('HEXISTS', P .. 'xdrop', id) == 1, now)
    else
      rcall('ZREM', P .. 'expiry', id)
      rcall('HDEL', P .. 'xdrop', id)
    end
  end
  return C.moreExpired
end
-- The jobs a claim leased (attSet: id, delivery pairs, in row order):
-- started, a deadline to start no longer applies to them; with time limits
-- C.limits gets the row and limit (ms) of each job that has one, which
-- take returns after its rows (lua/replies.txt, `limit`).
function Life.leased(Q, C, attSet)
  local ids = {}
  for k = 1, #attSet / 2 do ids[k] = attSet[k + k - 1] end
  if Q.expiry then
    callSliced('ZREM', P .. 'expiry', ids)
    callSliced('HDEL', P .. 'xdrop', ids)
  end
  if Q.timeouts then
    local ms, rows = Life.timeLimits(ids, C.tmo), {}
    for k = 1, #ids do
      if ms[k] then rows[#rows + 1] = k; rows[#rows + 1] = ms[k] end
    end
    if #rows > 0 then C.limits = rows end
  end
end
-- After take's reply (its next-due time last): the rows of C.limits, as
-- their count, then a `limit` row each.
function Life.limitRows(C, out)
  local rows = C.limits
  out[#out + 1] = #rows / 2
  for i = 1, #rows, 2 do
    local o = #out
    out[o + LIMIT_ROW] = rows[i]
    out[o + LIMIT_TIMEOUT_MS] = rows[i + 1]
  end
end
