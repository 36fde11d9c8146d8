--[[ waitconf: turn a queue's per-lane wait figures on (with their window) or off.
-- KEYS: seq gweight glimit config
-- ARGV (lua/args.txt, `waitconf`): window in seconds 1..WAIT_WINDOW_MAX_S (the figures cover the last
--   one to two windows), "0" = off, "-1" = only read it
-- Returns {OK, the window it had (0 = off)} or {EINVAL, msg}.
-- Turning them off, or changing the window, drops the figures so far (the
-- hash gwait, docs/keys.md): windows of another length do not add up.
-- Keeps: I1-I3 untouched (no lane moves).
]]
--@include args
--@include waits
--@include typeGuard

local A, bad = readArgs()
if not A then return bad end
local w = argInt(A.window, -1, WAIT_WINDOW_MAX_S)
if not w then return { EINVAL, 'wait figures: window must be 0 (off) or 1..' .. WAIT_WINDOW_MAX_S .. ' s' } end
local Q
Q, bad = readQueue()
bad = bad or typeGuard({ [K.config] = 'hash', [okey('gwait')] = 'hash' })
if bad then return bad end
local had = Q.waits or 0
if w < 0 or w == had then return { OK, had } end
rcall('DEL', okey('gwait'))
if w > 0 then rcall('HSET', K.config, 'waits', S(w)) else rcall('HDEL', K.config, 'waits') end
return { OK, had }
