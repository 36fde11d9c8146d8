#!lua flags=no-writes
--[[ flowinfo: a job's links in its flow (read-only): its state, the parent
-- that waits for it, and its children with what became of each.
-- KEYS: seq leases delayed dead stats config jobs att
-- ARGV (lua/args.txt, `flowinfo`): id
-- Returns {OK, a `flow` row (lua/replies.txt), then `count` `child` rows};
-- a job in no flow: parent 0, no children. A job gone but for a retained
-- outcome is JOB_COMPLETED with no links (they go at its settlement).
-- {ENOTFOUND, msg} for no such job; {EINVAL, msg} for a bad id.
]]
--@include args
--@include lookup
--@include place
--@include outcomeOf

local A, bad = readArgs()
if not A then return bad end
local id, rec = jobById('flowinfo', A.id)
local out = { OK }  -- then a `flow` row, then the `child` rows
if not id then
  if rec[1] ~= ENOTFOUND or not outcomeOf(A.id, serverNowMs()) then return rec end
  out[1 + FLOW_STATE] = JOB_COMPLETED
  out[1 + FLOW_PARENT] = '0'
  out[1 + FLOW_ON_FAIL] = FLOW_FAIL
  out[1 + FLOW_WAITING] = 0
  out[1 + FLOW_COUNT] = 0
  return out
end
local up = rcall('HGET', FL.key('up'), id)
local pid, policy, kids = '0', FLOW_FAIL, false
if up then pid, policy, kids = FL.unpackUp(up) end
out[1 + FLOW_STATE] = jobPlace(id)
out[1 + FLOW_PARENT] = pid
out[1 + FLOW_ON_FAIL] = policy
out[1 + FLOW_WAITING] = tonumber(rcall('HGET', FL.key('deps'), id) or '0')
local all = kids and rcall('HGETALL', FL.kids(id)) or {}
out[1 + FLOW_COUNT] = #all / 2
for i = 1, #all, 2 do
  local cid, v = all[i], all[i + 1]
  local o = #out
  local st, ms, att, err, result = FL.unpackOutcome(v)
  out[o + CHILD_ID] = cid
  if st then
    out[o + CHILD_STATE] = st == 'c' and JOB_COMPLETED or JOB_DEAD
    out[o + CHILD_ATTEMPTS] = att
    out[o + CHILD_FINISHED_AT] = ms
    out[o + CHILD_ERROR] = err
    out[o + CHILD_RESULT] = result
  else
    -- Not finished: where it is now (I3), its attempts and last error so far.
    local a, e = unpackAtt(rcall('HGET', K.att, cid))
    out[o + CHILD_STATE] = rcall('HEXISTS', K.jobs, cid) == 1 and jobPlace(cid) or 0
    out[o + CHILD_ATTEMPTS] = a
    out[o + CHILD_FINISHED_AT] = '0'
    out[o + CHILD_ERROR] = e
    out[o + CHILD_RESULT] = ''
  end
end
return out
