#!lua flags=allow-oom
--[[ extend: move the lease deadlines of held jobs to server now + lease ms.
-- KEYS: seq leases config jobs att
-- ARGV[1] key prefix "emq:{q}:"   ARGV[2] lease ms   ARGV[3] n, then n
--   pairs: id, token
-- Returns {OK, an `extended` head (the new deadline), n codes: OK, ESTALE
-- (not leased with that token; also a job settled already) or ENOTFOUND (an
-- id never minted)}, {EINVAL, msg}.
-- Keeps: I1-I3 untouched (only lease scores move; a refused pair changes nothing).
]]
--@function
--@include record
--@include notHeld

local lease = argInt(ARGV[2], 1, LEASE_MAX_MS)
local n = argInt(ARGV[3], 1, BATCH_MAX)
if not lease or not n or #ARGV ~= 3 + 2 * n then return { EINVAL, 'extend: bad lease or count' } end
local ids, toks = {}, {}
for i = 1, n do
  local id, tok = argInt(ARGV[2 + 2 * i], 1, ID_MAX), argInt(ARGV[3 + 2 * i], 1, ID_MAX)
  if not id or not tok then return { EINVAL, 'extend: bad job id or token' } end
  ids[i] = ARGV[2 + 2 * i]
  toks[i] = ARGV[3 + 2 * i]
end
local bad = layoutError()
if bad then return bad end
local there = callSliced('HMGET', K.jobs, ids)
local atts = callSliced('HMGET', K.att, ids)
local held = callSliced('ZMSCORE', K.leases, ids)
local deadline = S(serverNowMs() + lease)
local out, upd = { OK }, {}  -- an `extended` head (EXTENDED_FIELDS), then a status per job
out[1 + EXTENDED_DEADLINE] = deadline
for i = 1, n do
  local st = OK
  if not there[i] then st = notHeld(ids[i])
  elseif not held[i] or not heldGroup(atts[i], toks[i]) then st = ESTALE
  else upd[#upd + 1] = deadline; upd[#upd + 1] = ids[i] end
  out[#out + 1] = st
end
if #upd > 0 then callSliced('ZADD', K.leases, upd, { 'XX' }) end
return out
