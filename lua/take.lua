#!lua flags=allow-oom
--[[ take: settle held jobs, then claim the next ones — the one path of every
-- claim (claim, wclaim, batches, blocking claims) and every settlement (ack,
-- ack_many, fail, release), fused into one round trip.
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gvt gdebt est
-- ARGV (lua/args.txt, `take`; read by lua/includes/takeCall.lua):
--   lease   ms, 1..LEASE_MAX_MS (ignored when claiming nothing)
--   n       jobs to claim, 0..BATCH_MAX   turns  at most, 1..BATCH_MAX
--   weighted "1" = weighted turns (wclaim)
--   flags   "w" pass a wake-up on to the next blocked claimer; "s" claim
--           only if every settlement was accepted
--   nonce   1..ID_MAX: fresh and random per call (the client draws it from
--           a CSPRNG); its low bits go into the tokens of the jobs claimed
--   acks[]  id, token (decimal, as a claim returned them: any other string
--           is not found or stale)
--   fails[] id, token, retry delay ms (0 = back to its lane now, > 0 =
--           after that delay, -1 = backoff, -2 = dead-letter now, -3 =
--           release: back to its lane, the attempt not counted), reason
--   charges[] (optional) lane, cost (0..ID_MAX units: measured µs or
--           reported units): what the lanes' settled work cost. In cost mode
--           each lane's v rises by cost / weight (lua/includes/cost.lua);
--           otherwise they are checked and ignored. The estimates of a
--           charged lane's jobs settled in this call are refunded from its
--           charges (they were charged at the claim: the real cost replaces
--           them).
--   results[] (optional, after a charges count, which may be 0) id (an
--           ack's), result bytes (at most RESULT_MAX: ETOOLARGE), kept when
--           the job's outcome is retained.
--   drops[] (optional, after a results count, which may be 0) id (an
--           ack's), why its result is not kept (at most REASON_MAX bytes):
--           the job completes, its outcome records the reason instead of a
--           result (lua/includes/fin.lua) and its `completed` event carries
--           it. Sent only when a result was dropped.
-- Returns {OK or EMPTY, a + f codes, n, n job rows (lua/includes/lease.lua),
-- ms to the next due time (-1 none, 0 more due now)[, k, k `limit` rows: the
-- time limits of the jobs claimed, only while the queue has time limits]};
-- EMPTY when it was to claim and got nothing. Codes: OK / ESTALE / ENOTFOUND
-- (/ WAS_CANCELED) for acks, FAIL_RETRY / FAIL_DELAYED / FAIL_DEAD / ESTALE /
-- ENOTFOUND (/ WAS_CANCELED) for fails: ESTALE for a job not leased with
-- that token (also one settled already), ENOTFOUND for an id never minted
-- (lua/includes/notHeld.lua), WAS_CANCELED for a job canceled while leased.
-- {EINVAL, msg} or {ELAYOUT, msg} change nothing.
-- Keeps: I1 (rotation moves lanes, never adds a serviceable one twice; a
-- lane leaves when empty or at its ceiling, rejoins when freed), I2
-- (gactive = leased jobs; a claim never passes the ceiling), I3 (pending ->
-- leases -> deleted, or lane, delayed, dead).
-- The claim path in steps (docs/architecture.md, "The claim path"): the
-- call (takeCall), the queue's settings (readQueue), every read before the
-- first write (takeReads), the settlements (settle, then the charges:
-- settleCosts), the due work back (recover), the turns (serveTurns).
]]
--@function
--@include takeCall
--@include takeGuard
--@include settle
--@include recover
--@include turns
--@include qlimit

local C, bad = takeCall()
if not C then return bad end
local Q
Q, bad = readQueue()
if not Q then return bad end
local now = serverNowMs()
C.now = now
-- A token must fit 53 bits (lua/includes/record.lua, deliveryToken).
if C.n > 0 and not tokenClock(now, C.nonce) then
  return { ESERVER, 'take: the server clock is past 2093, beyond the fencing token space' }
end
-- The flags: "w" pass a wake-up on, "s" claim only if all settled.
local wake = C.flags ~= '' and string.find(C.flags, 'w', 1, true) ~= nil
local strict = C.flags ~= '' and string.find(C.flags, 's', 1, true) ~= nil
local due, debt, checked
due, debt, checked, bad = takeReads(Q, C, now, wake)
if bad then return bad end
local codes = {}
local refused
refused, bad = settle(Q, C, now, codes, checked)
if bad then return bad end
if Q.cost then settleCosts(Q, C, now) end
local out = { OK, #codes }
for j = 1, #codes do out[#out + 1] = codes[j] end
local at = #out + 1
out[at] = 0
local taken, more, want = 0, nil, C.n
-- The queue-wide ceiling and rate (lua/includes/qlimit.lua).
local G = C.gate  -- read with the reads before the first write (lua/includes/lifeTake.lua)
if C.n > 0 and not (refused > 0 and strict) then
  recover(Q, due, now)
  rejoinThrottled(Q, due)
  if debt then rejoinDebt(Q, debt) end
  -- Start deadlines passed (lua/includes/lifeTake.lua): while more may be
  -- due than one call removes, claim nothing ("more due now").
  if due.expired then more = Life.expireDue(Q, C, due, now) end
  if G then Life.queueCall(G, C, now) end  -- at most the room under the ceiling
  if not more and C.n > 0 then taken, more = serveTurns(Q, C, out) end
  out[at] = taken
  if taken == 0 then out[1] = EMPTY end
  -- A blocked claimer woke for this work; pass the wake-up on while work remains.
  if wake and rcall('LLEN', K.wake) == 0 and rcall('LLEN', K.ring) > 0 and not (G and G.room <= taken) then
    rcall('RPUSH', K.wake, '1')
  end
end
if G then Life.queueAfter(G, taken, #codes - refused, now) end
local nd = -1
if taken < want then nd = more and 0 or nextDue(now, Q) end
if G then nd = Life.queueNextDue(G, nd, now) end
out[#out + 1] = nd
if C.limits then Life.limitRows(C, out) end  -- the jobs' time limits
return out
