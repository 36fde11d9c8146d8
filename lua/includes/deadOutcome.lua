--@include emit
--@include fin
--@include wakeWaiters
--@include okey
-- The outcome side of a job that just died (lua/includes/attempt.lua),
-- while the queue's `outcomes` flag is on: its times and progress go to the
-- fin hash beside its dead record (job lookup shows them), its waiters are
-- woken and a `dead` event is written.
local function deadOutcome(Q, id, g, att, token, now, reason)
  local rec = rcall('HGET', K.jobs, id)
  local st = rcall('HMGET', okey('started'), id)[1]
  local prog = rcall('HGET', okey('progress'), id) or ''
  if rec then
    local _, _, at, _, mx = unpackRecord(rec)
    rcall('HSET', okey('fin'), id, packFin(now, st or nil, att, token, at, mx, g, prog, reason or '', ''))
  end
  rcall('HDEL', okey('started'), id)
  rcall('HDEL', okey('progress'), id)
  rcall('HDEL', okey('keep'), id)
  local w = rcall('HGET', okey('waiters'), id)
  if w then wakeWaiters(id, w); rcall('HDEL', okey('waiters'), id) end
  emit(Q, 'dead', id, g, att, { 'reason', reason or '' })
end
