--@include record
-- The job named by `id` (a job id as sent), for the scripts that act on one
-- job by id: its id, its record and the queue's settings (Q: readQueue); or nil
-- and the reply that refuses the call (a bad id, a queue of another layout,
-- no such job: then Q too). `what` names the operation.
local function jobById(what, id)
  if not argInt(id, 1, ID_MAX) then return nil, { EINVAL, what .. ': bad job id' } end
  local Q, bad = readQueue()
  if bad then return nil, bad end
  local rec = rcall('HGET', K.jobs, id)
  if not rec then
    return nil, { ENOTFOUND, what .. ': job ' .. id .. ' not found (acked, deleted, or never enqueued)' }, Q
  end
  return id, rec, Q
end
