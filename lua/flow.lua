#!lua
--[[ flow: enqueue a flow, jobs that wait for other jobs of the queue, all
-- or nothing in one call (ids consecutive in row order).
-- KEYS: seq ring gweight glimit gactive paused leases delayed lanes glive gserved stats config wake jobs att grate gbucket throttled gcap idem idemexp gdebt est
-- ARGV (lua/args.txt, `flow`; read by lua/includes/flowCall.lua):
--   max_attempts  1..ATTEMPTS_MAX (0 = the queue default), every job's
--   jobs[]  parent (the row, 1-based, of the job that waits for this one;
--           0 = none), policy (what that parent does if this job dies:
--           FLOW_FAIL, FLOW_IGNORE or FLOW_CONTINUE), group, payload.
--           1..FLOW_MAX rows, no cycle.
-- Returns {OK, an `enqueued` head: first id, n}; {EFULL, msg} when a lane
-- would pass its size cap; {EINVAL, msg}, {ETOOLARGE, msg} (over FLOW_MAX)
-- or {ELAYOUT, msg}. A refused call writes nothing.
-- Keeps: I1 (lanes of the jobs without children join the ring as enqueue's
-- do), I3 (a job without children is in its lane, one with children in
-- `parents`, the place "waiting for children"), glive (every job counts in
-- its lane's live jobs, a waiting parent too).
]]
--@include flowCall
--@include enqueueLanes
--@include enqueueWrite
--@include flowWrite

local F, bad = flowCall()
if not F then return bad end
local Q
Q, bad = readQueue()
if not Q then return bad end
local entries = {}
for i = 1, F.n do entries[i] = i end
local lanes, count = enqueueLanes(F, entries)
if not lanes then return count end
bad = sizeCapError(lanes, count)
if bad then return bad end
local now = serverNowMs()
if F.maxatt == 0 then F.maxatt = tonumber(rcall('HGET', K.config, 'maxatt') or '') or DEFAULT_MAX_ATTEMPTS end
-- The jobs without children go to their lanes now; their lanes in order.
local leafLanes, seen = {}, {}
for i = 1, F.n do
  local g = F.groups[i]
  if not F.kids[i] and not seen[g] then seen[g] = true; leafLanes[#leafLanes + 1] = g end
end
local join, wait, bursting = joinPlan(Q, leafLanes, now)
bad = enqueueGuard(Q, F, lanes, join, wait, bursting)
if not bad then
  -- (A parent's k: key is new: its id is minted by this call.)
  local want = { [K.config] = 'hash' }
  for _, name in ipairs(FL.KEYS) do want[FL.key(name)] = KEY_TYPES[name] end
  bad = typeGuard(want)
end
if bad then return bad end

local first = addJobs(Q, F, entries, lanes, now)
local leaves = {}
for i = 1, F.n do
  if not F.kids[i] then
    local g = F.groups[i]
    local l = leaves[g]
    if not l then l = {}; leaves[g] = l end
    l[#l + 1] = S(first + i - 1)
  end
end
addToLanes(Q, F, lanes, count, leaves, join, wait, bursting, now)
writeLinks(Q, F, first)
local reply = { OK }  -- then an `enqueued` head (lua/replies.txt: ENQUEUED_FIELDS values)
reply[1 + ENQUEUED_FIRST] = first
reply[1 + ENQUEUED_COUNT] = F.n
return reply
