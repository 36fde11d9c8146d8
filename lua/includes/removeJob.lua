--@include lane
--@include emit
--@include dropJob
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
  -- Its record, delivery state, estimate, outcome state (its waiters wake
  -- to find it gone) and lifecycle entries (lua/includes/dropJob.lua).
  Life.dropRecord(Q, id)
  emit(Q, 'deleted', id, g, att)
  return state
end
