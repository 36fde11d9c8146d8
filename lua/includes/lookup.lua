--@include record
-- The job named by ARGV[2] (an id), for the scripts that act on one job by
-- id: its id and record, or nil and the reply that refuses the call (a bad
-- id, a queue of another layout, no such job). `what` names the operation.
local function jobById(what)
  if not argInt(ARGV[2], 1, ID_MAX) then return nil, { EINVAL, what .. ': bad job id' } end
  local bad = layoutError()
  if bad then return nil, bad end
  local id = ARGV[2]
  local rec = rcall('HGET', K.jobs, id)
  if not rec then
    return nil, { ENOTFOUND, what .. ': job ' .. id .. ' not found (acked, deleted, or never enqueued)' }
  end
  return id, rec
end
