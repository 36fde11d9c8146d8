#!lua flags=allow-oom
--[[ progress: a held job reports its progress (fenced like extend).
-- KEYS: seq leases config jobs att progress events
-- ARGV (lua/args.txt, `progress`): id, token, value (0..PROGRESS_MAX bytes)
-- Keeps the value beside the job (job lookup shows it; a retained outcome
-- keeps the last one), turns the queue's `outcomes` flag on (so the job's
-- ack clears it) and writes a `progress` event when events are on.
-- Returns {OK}, {ESTALE, msg} (not leased with that token; also a job
-- settled already), {ENOTFOUND, msg} (an id never minted), {ETOOLARGE, msg} or
-- {EINVAL, msg}: a refused call writes nothing.
-- Keeps: I1-I3 untouched.
]]
--@include args
--@include record
--@include emit
--@include typeGuard
--@include notHeld

local A, bad = readArgs()
if not A then return bad end
local tok, v = A.token, A.value
if not argInt(A.id, 1, ID_MAX) or not argInt(tok, 1, ID_MAX) then
  return { EINVAL, 'progress: bad job id, token or value' }
end
if #v > PROGRESS_MAX then return { ETOOLARGE, 'progress: value of ' .. #v .. ' bytes, over ' .. PROGRESS_MAX } end
local Q
Q, bad = readQueue()
bad = bad or typeGuard({ [K.progress] = 'hash', [K.config] = 'hash', [K.events] = 'stream' })
if bad then return bad end
local id = A.id
if rcall('HEXISTS', K.jobs, id) == 0 then
  local st = notHeld(id)
  return { st, 'progress: job ' .. id .. (st == ESTALE and ' is no longer leased' or ' not found') }
end
local att = rcall('HGET', K.att, id)
local g = rcall('ZSCORE', K.leases, id) and heldGroup(att, tok)
if not g then return { ESTALE, 'progress: job ' .. id .. ' is not leased with token ' .. tok } end
rcall('HSET', K.progress, id, v)
if not Q.outcomes then rcall('HSET', K.config, 'outcomes', '1'); Q.outcomes = '1' end
emit(Q, 'progress', id, g, unpackAtt(att), { 'progress', v })
return { OK }
