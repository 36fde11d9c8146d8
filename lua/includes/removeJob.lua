--@include lane
--@include emit
--@include wakeWaiters
--@include flowTree
-- Removes job id (record rec, not leased) from wherever it is, with its
-- delivery state, estimate, outcome state and flow links (lua/delete.lua,
-- lua/delflow.lua). Returns the state it had.
local function removeJob(Q, id, rec)
  local g = unpackRecord(rec)
  local state
  if rcall('ZREM', K.dead, id) == 1 then
    state = JOB_DEAD
  elseif Q.flows and flowForget(id) then
    state = JOB_WAITING
    rcall('HINCRBY', K.stats, 'deleted', 1)
    addLive(Q, g, -1)
  elseif rcall('ZREM', K.delayed, id) == 1 then
    state = JOB_DELAYED
    rcall('HINCRBY', K.stats, 'deleted', 1)
    addLive(Q, g, -1)
  else
    state = JOB_PENDING
    local before = laneState(g)
    rcall('ZREM', pendingKey(g), id)
    rcall('HINCRBY', K.stats, 'deleted', 1)
    fixRing(Q, g, before)
    addLive(Q, g, -1)
  end
  if Q.flows then flowForget(id) end
  local att = unpackAtt(rcall('HGET', K.att, id))
  rcall('HDEL', K.jobs, id)
  rcall('HDEL', K.att, id)
  -- Its cost estimate goes with it; a wrong-typed est key (verify's to
  -- report) must not stop the rest, hence pcall.
  redis.pcall('HDEL', K.est, id)
  -- Its outcome state, if any; its waiters wake to find it gone.
  for _, key in ipairs({ K.fin, K.started, K.progress, K.keep }) do rcall('HDEL', key, id) end
  local w = rcall('HGET', K.waiters, id)
  if w then wakeWaiters(id, w); rcall('HDEL', K.waiters, id) end
  emit(Q, 'deleted', id, g, att)
  return state
end
