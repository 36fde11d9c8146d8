#!lua
--[[ enqueue: add n jobs in one call (ids consecutive in mint order).
-- KEYS: seq ring gweight glimit gactive paused leases delayed lanes glive gserved stats config wake jobs att grate gbucket throttled gcap idem idemexp gdebt est
-- ARGV (lua/args.txt, `enqueue`; read by lua/includes/enqueueCall.lua):
--   delay   ms, 0..DELAY_MAX_MS (0 = ready now)
--   max_attempts  1..ATTEMPTS_MAX (0 = the queue default)
--   jobs[]  group, payload
--   keys    (option) window ms (1..DEDUP_WINDOW_MAX_MS), then an
--           idempotency key per job ("" = none, at most DEDUP_KEY_MAX bytes)
--   keep    (option) to retain these jobs' outcomes (lua/outconf.lua): keep
--           ms, keep last (0..KEEP_MAX_MS, 0..KEEP_LAST_MAX, not both 0)
--   est     (option) a cost estimate, units (1..ID_MAX) for each job. In
--           cost mode it is kept per job (key est) and charged at the claim
--           until the real cost replaces it (lua/includes/estimate.lua);
--           otherwise checked and ignored.
--   at      (option) a due time (ms since the epoch, 0..ID_MAX; with delay
--           0) against the server's clock: one past is due now, one more
--           than DELAY_MAX_MS ahead is EINVAL
--   life    (option) the jobs' time limit (ms, 0..TIMEOUT_MAX_MS, 0 = the
--           queue's default), start deadline (expires_at: server ms, or
--           ttl: ms from now; 0 = none; a deadline passed, or before the
--           jobs are due, is EINVAL) and drop ("1": an expired job is
--           removed, not dead-lettered) (lua/includes/lifeEnqueue.lua)
--   meta    (option) each job's name and headers ("" = none; at most
--           JOB_META_MAX bytes, no control character but "\n" and "\t"),
--           stored in its record as is (lua/includes/record.lua)
-- Returns {OK, an `enqueued` head: first id, n}; with keys {OK, the head
-- (first id, jobs enqueued), n ids, n duplicate flags}: an entry whose key
-- the queue saw within its window (or an earlier entry of the call had) is
-- not enqueued and gets the first job's id; {EFULL, msg} when a lane would
-- pass its size cap (pending + delayed jobs; the whole call is refused);
-- {EINVAL, msg} or {ELAYOUT, msg}. A refused call writes nothing.
-- Keeps: I1 (a lane that becomes serviceable joins the ring once, lanes in
-- the order of their first job), I3 (each job lands in exactly one place:
-- its lane or the delayed set). Writes are per lane and per hash, not per job.
]]
--@function
--@include enqueueCall
--@include dedup
--@include enqueueLanes
--@include enqueueWrite

local E, bad = enqueueCall()
if not E then return bad end
local Q
Q, bad = readQueue()
if not Q then return bad end
-- The entries to enqueue; duplicates get the first job's id and write nothing.
local entries, dupOf, keyAt = {}, {}, nil
if E.keys then
  entries, dupOf, keyAt = dedupEntries(E)
  if #entries == 0 then return dedupReply(E.n, 0, 0, dupOf, {}) end
else
  for i = 1, E.n do entries[i] = i end
end
local lanes, count = enqueueLanes(E, entries)
if not lanes then return count end
bad = sizeCapError(lanes, count)
if bad then return bad end
local now = serverNowMs()
if E.at then  -- an absolute due time becomes a delay on the server's clock
  E.delay = math.max(E.at - now, 0)
  if E.delay > DELAY_MAX_MS then return { EINVAL, 'enqueue: at is more than ' .. S(DELAY_MAX_MS) .. ' ms ahead' } end
end
if E.maxatt == 0 then E.maxatt = tonumber(rcall('HGET', K.config, 'maxatt') or '') or DEFAULT_MAX_ATTEMPTS end
-- Outside cost mode an estimate would never be read: a plain queue keeps none.
if not Q.cost then E.estimate = nil end
if E.life then  -- a start deadline is checked on the server's clock
  bad = Life.enqueueCheck(E, now)
  if bad then return bad end
end
-- The lanes that join the ring, and a type check of every key written.
local join, wait, bursting = {}, {}, {}
if E.delay == 0 then join, wait, bursting = joinPlan(Q, lanes, now) end
bad = enqueueGuard(Q, E, lanes, join, wait, bursting)
if bad then return bad end

local first, idsOf = addJobs(Q, E, entries, lanes, now)
addToLanes(Q, E, lanes, count, idsOf, join, wait, bursting, now)
if E.keys then return rememberKeys(E.n, first, entries, dupOf, keyAt, E.window, now) end
local reply = { OK }  -- then an `enqueued` head (lua/replies.txt: ENQUEUED_FIELDS values)
reply[1 + ENQUEUED_FIRST] = first
reply[1 + ENQUEUED_COUNT] = #entries
return reply
