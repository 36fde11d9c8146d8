#!lua flags=no-writes
--[[ job: one job by id, wherever it is (read-only).
-- KEYS: seq leases delayed dead config jobs att
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] job id
-- Returns {OK, then an `info` row of INFO_FIELDS values (lua/replies.txt)}:
-- state JOB_PENDING, JOB_LEASED (when = lease deadline), JOB_DELAYED (when =
-- due time) or JOB_DEAD (when = time of death), when "0" for a pending job;
-- {ENOTFOUND, msg} for no such job.
]]
--@include lookup

local id, rec = jobById('job')
if not id then return rec end
local g, p, at, cap, mx = unpackRecord(rec)
local state, when = JOB_PENDING, '0'
-- The set that holds the id is where the job is (I3).
for _, w in ipairs({ { K.leases, JOB_LEASED }, { K.delayed, JOB_DELAYED }, { K.dead, JOB_DEAD } }) do
  local sc = rcall('ZSCORE', w[1], id)
  if sc then state, when = w[2], sc; break end
end
local att, err, token = unpackAtt(rcall('HGET', K.att, id))
local out = { OK }  -- then an `info` row (lua/replies.txt: INFO_FIELDS values)
out[1 + INFO_ID] = id
out[1 + INFO_STATE] = state
out[1 + INFO_GROUP] = g
out[1 + INFO_PAYLOAD] = p
out[1 + INFO_ATTEMPTS] = att
out[1 + INFO_TOKEN] = S(token)
out[1 + INFO_MAX_ATTEMPTS] = mx
out[1 + INFO_CAP] = S(cap)
out[1 + INFO_ENQUEUED_AT] = at
out[1 + INFO_WHEN] = when
out[1 + INFO_LAST_ERROR] = err
return out
