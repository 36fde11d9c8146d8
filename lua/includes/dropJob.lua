--@include okey
--@include life
--@include wakeWaiters
-- Job `id`, out of every place, goes whole: its record, delivery state and
-- cost estimate, its outcome state (its waiters wake to find it gone) and
-- its lifecycle entries (lua/includes/life.lua). delete and a cancel's
-- remove. A wrong-typed est key (verify's to report) must not stop the
-- rest, hence pcall; the other keys were type-checked by the caller.
function Life.dropRecord(Q, id)
  rcall('HDEL', K.jobs, id)
  rcall('HDEL', K.att, id)
  redis.pcall('HDEL', K.est, id)
  for _, name in ipairs({ 'fin', 'started', 'progress', 'keep' }) do rcall('HDEL', okey(name), id) end
  local w = rcall('HGET', okey('waiters'), id)
  if w then wakeWaiters(id, w); rcall('HDEL', okey('waiters'), id) end
  Life.forget(Q, id, true)
end
