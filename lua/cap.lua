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
--@include setting

local A, bad = readArgs()
if not A then return bad end
local g = A.group
local n = argInt(A.cap, 0, CAP_MAX)
if not g or not n then return { EINVAL, 'cap: bad group or cap (0..' .. S(CAP_MAX) .. ')' } end
-- A cap bounds a lane's waiting jobs: a tenant has none (docs/architecture.md).
if #g > 0 and laneNameProblem(g) then return { EINVAL, 'cap: ' .. laneNameProblem(g) } end
local Q
Q, bad = settingQueue(nil, g, 'cap', A.cap)
if not Q then return bad end
setOwn(K.gcap, g, n)
return { OK }
