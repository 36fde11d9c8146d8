--@include record
-- Delivery state v of att field id against the job's record, for verify
-- and repair: nil when sound (or the mark: lua/includes/base.lua), else
-- 'orphan' (no such job), or 'lane' with the record's lane and the one v
-- names (nil when v is malformed): an ack lowers the counts of that lane.
local function attProblem(id, v)
  if id == COUNTERS_MARK then return nil end
  local rec = rcall('HGET', K.jobs, id)
  if not rec then return 'orphan' end
  local g, ag = unpackRecord(rec), select(4, unpackAtt(v))
  if ag ~= g then return 'lane', g, ag end
  return nil
end
