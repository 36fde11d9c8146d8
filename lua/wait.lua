#!lua flags=allow-oom
--[[ wait: register a waiter for job id's outcome, or say it has one.
-- KEYS: seq dead stats config jobs waiters
-- ARGV (lua/args.txt, `wait`): mode "wait" or "unwait" (a waiter that gave
--   up), id
-- wait: {OK, state} when the job has finished (JOB_DEAD, or JOB_COMPLETED
-- while retained): read it with the job script; else {PENDING}: the waiter
-- is counted (waiters), the queue's `outcomes` flag is on, and the ack or
-- death of the job pushes one element per waiter onto "emq:{q}:w:<id>"
-- (lua/includes/wakeWaiters.lua), where the caller blocks with BLPOP.
-- {ENOTFOUND, msg}: no such job (never enqueued, deleted, or acked and not
-- retained). unwait: {OK}. {EINVAL, msg} changes nothing.
-- Keeps: I1-I3 untouched.
]]
--@include args
--@include lookup
--@include outcomeOf
--@include typeGuard

local A, bad = readArgs()
if not A then return bad end
if A.mode == 'unwait' then
  if not argInt(A.id, 1, ID_MAX) then return { EINVAL, 'wait: bad job id' } end
  bad = layoutError() or typeGuard({ [K.waiters] = 'hash' })
  if bad then return bad end
  if rcall('HEXISTS', K.waiters, A.id) == 1 and rcall('HINCRBY', K.waiters, A.id, -1) <= 0 then
    rcall('HDEL', K.waiters, A.id)
  end
  return { OK }
end
local id, rec = jobById('wait', A.id)
if not id then
  if rec[1] ~= ENOTFOUND then return rec end
  if outcomeOf(A.id, serverNowMs()) then return { OK, JOB_COMPLETED } end
  return rec
end
if rcall('ZSCORE', K.dead, id) then return { OK, JOB_DEAD } end
bad = typeGuard({ [K.waiters] = 'hash', [K.config] = 'hash' })
if bad then return bad end
rcall('HINCRBY', K.waiters, id, 1)
rcall('HSET', K.config, 'outcomes', '1')
return { PENDING }
