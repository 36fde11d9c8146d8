--@include life
-- The lifecycle options of an enqueue (lua/args.txt, `enqueue life?`): the
-- jobs' time limit and start deadline (docs/architecture.md, "Lifecycle").
-- Read into E.life = {timeout (ms, 0 = the queue's default), at (a start
-- deadline, server ms, 0 = none), ttl (ms after the enqueue, 0 = none),
-- drop (an expired job is removed, not dead-lettered)}, or nil and
-- {EINVAL, msg}.
function Life.enqueueArgs(o)
  local life = { timeout = argInt(o.timeout, 0, TIMEOUT_MAX_MS), at = argInt(o.expires_at, 0, ID_MAX),
                 ttl = argInt(o.ttl, 0, TTL_MAX_MS), drop = o.drop == '1' }
  if not life.timeout then return nil, { EINVAL, 'enqueue: timeout must be 1..' .. S(TIMEOUT_MAX_MS) .. ' ms' } end
  if not life.at or not life.ttl or (o.drop ~= '0' and o.drop ~= '1') then
    return nil, { EINVAL, 'enqueue: bad start deadline' }
  end
  if life.at > 0 and life.ttl > 0 then return nil, { EINVAL, 'enqueue: give expires_at or ttl, not both' } end
  return life
end
-- The start deadline of the jobs of E, checked against the server's clock
-- before any write: a deadline that has passed, is more than TTL_MAX_MS
-- ahead or comes before the jobs are due is refused ({EINVAL, msg}).
function Life.enqueueCheck(E, now)
  local life = E.life
  if life.ttl > 0 then life.deadline = now + life.ttl elseif life.at > 0 then life.deadline = life.at end
  local d = life.deadline
  if not d then return nil end
  if d <= now then
    return { EINVAL, 'enqueue: the start deadline ' .. S(d) .. ' has passed (server time ' .. S(now) .. ')' }
  end
  if d > now + TTL_MAX_MS then return { EINVAL, 'enqueue: the start deadline is more than ' .. S(TTL_MAX_MS) .. ' ms ahead' } end
  if d <= now + E.delay then
    return { EINVAL, 'enqueue: the start deadline comes before the jobs are due (delay ' .. S(E.delay) .. ' ms)' }
  end
  return nil
end
-- The keys the lifecycle options write (for enqueueGuard).
function Life.enqueueKeys(E, want)
  if E.life.timeout > 0 then want[P .. 'tmo'] = 'hash' end
  if E.life.deadline then want[P .. 'expiry'] = 'zset'; want[P .. 'xdrop'] = 'hash' end
  want[K.config] = 'hash'
end
-- After the jobs `ids` are written: their time limit and start deadline.
function Life.enqueueJobs(Q, E, ids)
  local life, pairs2 = E.life, {}
  if life.timeout > 0 then
    for i = 1, #ids do pairs2[i + i - 1] = ids[i]; pairs2[i + i] = S(life.timeout) end
    callSliced('HSET', P .. 'tmo', pairs2)
    Life.set(Q, 'timeouts', true)
  end
  if life.deadline then
    local z = {}
    for i = 1, #ids do z[i + i - 1] = S(life.deadline); z[i + i] = ids[i] end
    callSliced('ZADD', P .. 'expiry', z)
    if life.drop then
      local d = {}
      for i = 1, #ids do d[i + i - 1] = ids[i]; d[i + i] = '1' end
      callSliced('HSET', P .. 'xdrop', d)
    end
    Life.set(Q, 'expiry', true)
  end
end
