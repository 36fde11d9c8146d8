--[[ costmode: turn a queue's cost mode on (with its quantum) or off.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gvt gdebt est
-- ARGV (lua/args.txt, `costmode`): quantum 1..ID_MAX (cost units: µs when the worker engine measures
--   handler time), "0" = off (turns count jobs again), "-1" = only read it
-- Returns {OK, the quantum it had (0 = off)} or {EINVAL, msg}.
-- Keeps: I1 — turning it off brings every lane that sits out in gdebt back
-- to the ring (or to `throttled`), then forgets every lane's charge; turning
-- it on or changing the quantum moves no lane: the next turns decide.
]]
--@include args
--@include cost
--@include typeGuard

local A, bad = readArgs()
if not A then return bad end
local q = argInt(A.quantum, -1, ID_MAX)
if not q then return { EINVAL, 'cost mode: quantum must be 0 (off) or 1..' .. S(ID_MAX) } end
local Q
Q, bad = readQueue()
bad = bad or guardKeys()  -- no half writes
if bad then return bad end
local had = Q.cost or 0
if q < 0 then return { OK, had } end
if q > 0 then
  rcall('HSET', K.config, 'cost', S(q))
  return { OK, had }
end
if not Q.cost then return { OK, 0 } end
rcall('HDEL', K.config, 'cost')
for _, g in ipairs(rcall('ZRANGE', K.gdebt, 0, -1)) do placeLane(Q, g) end
rcall('DEL', K.gdebt, K.gvt, K.est)  -- estimates are kept in cost mode only
return { OK, had }
