#!lua flags=allow-oom
--[[ take: settle held jobs, then claim the next ones — the one path of every
-- claim (claim, wclaim, batches, blocking claims) and every settlement (ack,
-- ack_many, fail, release), fused into one round trip.
-- KEYS: seq ring gweight glimit gactive paused leases delayed dead lanes glive gserved stats config wake jobs att grate gbucket throttled gcap gvt gdebt est
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] lease ms (1..LEASE_MAX_MS; ignored when claiming nothing)
-- ARGV[3] jobs to claim, 0..BATCH_MAX   ARGV[4] turns at most, 1..BATCH_MAX
-- ARGV[5] "1" = weighted turns (wclaim)  ARGV[6] flags: "w" pass a wake-up
--   on to the next blocked claimer; "s" claim only if every settlement was
--   accepted
-- ARGV[7] nonce, 1..ID_MAX: fresh and random per call (the client draws it
--   from a CSPRNG); its low bits go into the tokens of the jobs claimed
-- ARGV[8] acks a, then a pairs: id, token (decimal, as a claim returned
--   them: any other string is not found or stale)
-- then fails f, then f quads: id, token, retry delay ms (0 = back to its lane
--   now, > 0 = after that delay, -1 = backoff, -2 = dead-letter now, -3 =
--   release: back to its lane, the attempt not counted), reason
-- then (optional) charges c, then c pairs: lane, cost (0..ID_MAX units:
--   measured µs or reported units): what the lanes' settled work cost. In
--   cost mode each lane's v rises by cost / weight (lua/includes/cost.lua);
--   otherwise they are checked and ignored. The estimates of a charged
--   lane's jobs settled in this call are refunded from its charges (they
--   were charged at the claim: the real cost replaces them).
-- then (optional, only after the charges count, which may be 0) results r,
--   then r pairs: id (an ack's), result bytes (at most RESULT_MAX:
--   ETOOLARGE), kept when the job's outcome is retained.
-- The order is fixed: acks, fails, charges, results, each section led by its
--   count; a call sending results sends a charges count first (0 for none).
-- Returns {OK or EMPTY, a + f codes, n, n job rows (serveTurns), ms to the next
-- due time (-1 none, 0 more due now)}; EMPTY when it was to claim and got
-- nothing. Codes: OK / ESTALE / ENOTFOUND for acks, FAIL_RETRY /
-- FAIL_DELAYED / FAIL_DEAD / ESTALE / ENOTFOUND for fails: ESTALE for a job
-- not leased with that token (also one settled already), ENOTFOUND for an
-- id never minted (lua/includes/notHeld.lua). {EINVAL, msg} or
-- {ELAYOUT, msg} change nothing.
-- Keeps: I1 (rotation moves lanes, never adds a serviceable one twice; a
-- lane leaves when empty or at its ceiling, rejoins when freed), I2
-- (gactive = leased jobs; a claim never passes the ceiling), I3 (pending ->
-- leases -> deleted, or lane, delayed, dead).
]]
--@function
--@include settle
--@include recover
--@include turns
--@include takeGuard
--@include cost

local lease = argInt(ARGV[2], 0, LEASE_MAX_MS)
local n = argInt(ARGV[3], 0, BATCH_MAX)
local turns = argInt(ARGV[4], 1, BATCH_MAX)
local flags = ARGV[6] or ''
local nonce = argInt(ARGV[7], 1, ID_MAX)
if not lease or not n or not turns or (n > 0 and lease < 1) then
  return { EINVAL, 'take: bad lease, count or turns' }
end
if not nonce then return { EINVAL, 'take: bad nonce' } end
local ackIds, ackToks, fails = {}, {}, {}
local na = argInt(ARGV[8], 0, BATCH_MAX)
if not na then return { EINVAL, 'take: bad ack count' } end
local i = 9
-- Ack ids and tokens are matched as strings (settle), not parsed: any but
-- the decimal strings a claim returned finds no job or a stale delivery.
local argv = ARGV  -- a local: ARGV is a global, one lookup per use
for a = 1, na do
  ackIds[a], ackToks[a] = argv[i], argv[i + 1]
  i = i + 2
end
local nf = argInt(ARGV[i], 0, BATCH_MAX)
if not nf then return { EINVAL, 'take: bad fail count' } end
i = i + 1
for _ = 1, nf do
  local id, tok = argInt(ARGV[i], 1, ID_MAX), argInt(ARGV[i + 1], 1, ID_MAX)
  local delay = argInt(ARGV[i + 2], -3, DELAY_MAX_MS)
  local reason = ARGV[i + 3]
  if not id or not tok or not delay or not reason or #reason > REASON_MAX then
    return { EINVAL, 'take: bad fail entry' }
  end
  fails[#fails + 1] = { ARGV[i], ARGV[i + 1], delay, reason }
  i = i + 4
end
-- Charges (optional): c, then c pairs: lane, cost.
local chLanes, chCosts = {}, {}
if ARGV[i] then
  local nc = argInt(ARGV[i], 0, BATCH_MAX)
  if not nc then return { EINVAL, 'take: bad charge count' } end
  i = i + 1
  for c = 1, nc do
    local g, cost = ARGV[i], argInt(ARGV[i + 1], 0, ID_MAX)
    if not g or #g < 1 or #g > GROUP_NAME_MAX or string.find(g, '%c') or not cost then
      return { EINVAL, 'take: bad charge entry' }
    end
    chLanes[c], chCosts[c] = g, cost
    i = i + 2
  end
end
-- Results of acks (optional, after the charges): r, then r pairs: id, result bytes.
local results = {}
if ARGV[i] then
  local nr = argInt(ARGV[i], 0, BATCH_MAX)
  if not nr then return { EINVAL, 'take: bad result count' } end
  i = i + 1
  for _ = 1, nr do
    local r = ARGV[i + 1]
    if not argInt(ARGV[i], 1, ID_MAX) or not r then return { EINVAL, 'take: bad result entry' } end
    if #r > RESULT_MAX then
      return { ETOOLARGE, 'take: result of job ' .. ARGV[i] .. ' is ' .. #r .. ' bytes, over ' .. RESULT_MAX }
    end
    results[ARGV[i]] = r
    i = i + 2
  end
end
if i ~= #ARGV + 1 then return { EINVAL, 'take: argument count does not match' } end
local bad = layoutError()
if bad then return bad end

local now = serverNowMs()
-- A token must fit 53 bits (lua/includes/record.lua, deliveryToken).
if n > 0 and not tokenClock(now, nonce) then
  return { ESERVER, 'take: the server clock is past 2093, beyond the fencing token space' }
end
-- No half writes: every key this call may write, or read after its first
-- write, must hold its type (lua/includes/typeGuard.lua): the reads before
-- the first write check most; a few TYPE calls per call the rest
-- (lua/includes/takeGuard.lua).
local due = n > 0 and dueWork(now, RECOVER_MAX) or nil
-- No limit, rate or throttle anywhere (nor a default): the turns read no
-- lane settings (lua/includes/turns.lua).
local plain = n > 0 and rcall('EXISTS', K.glimit, K.grate, K.gbucket) == 0
local weighted = ARGV[5] == '1'
local checked = takeGuard(ackIds, fails, due, n, plain, weighted, string.find(flags, 'w', 1, true))
-- While outcomes are on, the keys of their work too (lua/includes/okey.lua:
-- not in K, so not in the checks above).
if OUTCOMES then
  for _, name in ipairs({ 'done', 'doneexp', 'donecnt', 'fin', 'started', 'keep', 'waiters', 'progress', 'events' }) do
    checked[okey(name)] = KEY_TYPES[name]
  end
  checked[K.config] = 'hash'
end
-- Cost mode reads its floor and the lanes in debt that may come back now,
-- and checks its keys (and those a lane coming back touches).
local debt = nil
if COST_Q then
  checked[K.gvt] = 'hash'; checked[K.gdebt] = 'zset'; checked[K.gweight] = 'hash'
  -- Estimates stand in for costs (lua/includes/cost.lua, COST_EST).
  COST_EST = rcall('EXISTS', K.est) == 1
  if COST_EST then checked[K.est] = 'hash' end
  if n > 0 then
    debt = debtDue()
    if #debt.back > 0 then
      for _, name in ipairs({ 'ring', 'wake', 'throttled', 'paused', 'glimit', 'gactive', 'grate', 'gbucket' }) do
        checked[K[name]] = KEY_TYPES[name]
      end
    end
  end
end
-- Wait figures write their hash (lua/includes/waits.lua).
if WAITS then checked[okey('gwait')] = 'hash' end
bad = typeGuard(checked)
if bad then return bad end
local codes = {}
local refused
local took = COST_EST and {} or nil
refused, bad = settle(ackIds, ackToks, fails, now, codes, plain, checked, results, took)
if bad then return bad end
if COST_Q then
  if took then refundEstimates(took, chLanes, chCosts) end
  chargeLanes(chLanes, chCosts)
end
if COST_Q and WAITS then recordCosts(chLanes, chCosts, now) end
local out = { OK, #codes }
for j = 1, #codes do out[#out + 1] = codes[j] end
local at = #out + 1
out[at] = 0
local taken = 0
if n > 0 and not (refused > 0 and string.find(flags, 's', 1, true)) then
  recover(due, now)
  rejoinThrottled(due)
  if debt then rejoinDebt(debt) end
  taken = serveTurns(n, turns, weighted, plain, lease, now, nonce, out)
  out[at] = taken
  if taken == 0 then out[1] = EMPTY end
  -- A blocked claimer woke for this work; pass the wake-up on while work remains.
  if string.find(flags, 'w', 1, true) and rcall('LLEN', K.wake) == 0 and rcall('LLEN', K.ring) > 0 then
    rcall('RPUSH', K.wake, '1')
  end
end
out[#out + 1] = (taken < n) and (DEBT_MORE and 0 or nextDue(now)) or -1
return out
