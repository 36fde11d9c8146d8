#!lua flags=allow-oom
--[[ extend: move the lease deadlines of held jobs to server now + lease ms.
-- KEYS: seq leases config jobs att
-- ARGV (lua/args.txt, `extend`): lease ms (1..LEASE_MAX_MS), jobs[]: id,
--   token (1..BATCH_MAX of them)
-- Returns {OK, an `extended` head (the new deadline), n codes: OK, ESTALE
-- (not leased with that token; also a job settled already), ENOTFOUND (an
-- id never minted), WAS_CANCELED (extended, but the job was canceled: its
-- holder stops; lua/includes/cancelMarks.lua) or ETIMELIMIT (not extended:
-- the attempt ran past its time limit, lua/includes/timeLimit.lua)},
-- {EINVAL, msg}.
-- Keeps: I1-I3 untouched (only lease scores move; a refused pair changes nothing).
]]
--@function
--@include args
--@include record
--@include cancelMarks
--@include timeLimit
--@include notHeld

local A, bad = readArgs()
if not A then return bad end
local lease, jobs = argInt(A.lease, 1, LEASE_MAX_MS), A.jobs
local ids, toks, n = jobs.id, jobs.token, jobs.n
if not lease or n < 1 then return { EINVAL, 'extend: bad lease or count' } end
for i = 1, n do
  if not argInt(ids[i], 1, ID_MAX) or not argInt(toks[i], 1, ID_MAX) then
    return { EINVAL, 'extend: bad job id or token' }
  end
end
local Q
Q, bad = readQueue()
if bad then return bad end
local there = callSliced('HMGET', K.jobs, ids)
local atts = callSliced('HMGET', K.att, ids)
local held = callSliced('ZMSCORE', K.leases, ids)
local now = serverNowMs()
local deadline = S(now + lease)
-- Time limits (lua/includes/timeLimit.lua): past its limit, no extension.
local limits = Q.timeouts and Life.timeLimits(ids) or nil
local marks = Q.cancels and Life.cancelMarks(ids) or nil  -- lua/includes/cancelMarks.lua
local out, upd = { OK }, {}  -- an `extended` head (EXTENDED_FIELDS), then a status per job
out[1 + EXTENDED_DEADLINE] = deadline
for i = 1, n do
  local st = OK
  if not there[i] then st = notHeld(ids[i])
  elseif not held[i] or not heldGroup(atts[i], toks[i]) then st = ESTALE
  elseif limits and Life.overLimit(toks[i] + 0, limits[i], now) then st = ETIMELIMIT
  else upd[#upd + 1] = deadline; upd[#upd + 1] = ids[i] end
  out[#out + 1] = st
end
if #upd > 0 then callSliced('ZADD', K.leases, upd, { 'XX' }) end
if marks then Life.extendCanceled(marks, out, 1 + EXTENDED_FIELDS) end
return out
