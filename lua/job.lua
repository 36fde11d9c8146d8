#!lua flags=no-writes
--[[ job: one job by id, wherever it is (read-only).
-- KEYS: seq leases delayed dead config jobs att
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] job id
-- Returns {OK, id, state, group, payload, attempts, max attempts, attempt
-- cap, enqueued at, when, last error}: state JOB_PENDING, JOB_LEASED (when =
-- lease deadline), JOB_DELAYED (when = due time) or JOB_DEAD (when = time of
-- death), when "0" for a pending job; {ENOTFOUND, msg} for no such job.
]]
--@include record

if not argInt(ARGV[2], 1, ID_MAX) then return { EINVAL, 'job: bad job id' } end
local bad = layoutError()
if bad then return bad end
local id = ARGV[2]
local rec = rcall('HGET', K.jobs, id)
if not rec then return { ENOTFOUND, 'job ' .. id .. ' not found (acked, deleted, or never enqueued)' } end
local g, p, at, cap, mx = unpackRecord(rec)
local state, when = JOB_PENDING, '0'
-- The set that holds the id is where the job is (I3).
for _, w in ipairs({ { K.leases, JOB_LEASED }, { K.delayed, JOB_DELAYED }, { K.dead, JOB_DEAD } }) do
  local sc = rcall('ZSCORE', w[1], id)
  if sc then state, when = w[2], sc; break end
end
local att, err = unpackAtt(rcall('HGET', K.att, id))
return { OK, id, state, g, p, att, mx, S(cap), at, when, err }
