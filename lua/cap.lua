--[[ cap: a lane's size cap (most jobs waiting in it: pending + delayed), or
-- the queue default. An enqueue that would pass it is refused whole.
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake grate gbucket throttled gcap gdebt

-- ARGV (lua/args.txt, `cap`): group ("" = the queue default), cap
--   1..CAP_MAX or "0" to clear
-- Returns {OK} or {EINVAL, msg}.
-- Keeps: I1-I3 untouched (a cap lowered under a lane's backlog only refuses
-- new jobs; nothing waiting is dropped).
]]
--@include args
--@include lane
--@include typeGuard
--@include emit

local A, bad = readArgs()
if not A then return bad end
local g = A.group
local n = argInt(A.cap, 0, CAP_MAX)
if not g or not n then return { EINVAL, 'cap: bad group or cap (0..' .. S(CAP_MAX) .. ')' } end
-- A cap bounds a lane's waiting jobs: a tenant has none (docs/architecture.md).
if #g > 0 and laneNameProblem(g) then return { EINVAL, 'cap: ' .. laneNameProblem(g) } end
local Q
Q, bad = readQueue()
bad = bad or guardKeys()  -- no half writes
if bad then return bad end
-- A lane setting change is an event (docs/keys.md "Events").
if Q.outcomes then emit(Q, 'setting', '', g, 0, { 'setting', 'cap', 'value', A.cap }) end
if n == 0 then
  rcall('HDEL', K.gcap, g)
  if #g > 0 and tonumber(rcall('HGET', K.glive, g) or '0') <= 0 then forgetIdleLane(g) end
else
  rcall('HSET', K.gcap, g, S(n))
  if #g > 0 then rcall('ZADD', K.lanes, 'NX', 0, g) end
end
return { OK }
