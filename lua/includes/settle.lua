--@include attempt
--@include acks
--@include cancelHeld
--@include notHeld
-- Settlement of held jobs in one pass (lua/take.lua): the acks C.acks (id,
-- token) and the fails C.fails (id, token, delay, reason; delay RELEASE =
-- give back unstarted); ids and tokens are the decimal strings a claim
-- returned. Each is checked first — its delivery state carries its token
-- and it is leased (else STALE, or NOTFOUND for an id never minted: notHeld),
-- and no earlier entry of the call settled it — then the accepted ones are
-- applied: fails one by one, acks with one write per hash for the whole
-- list (lua/includes/acks.lua). codes[i] gets each entry's status, acks
-- first (fails: the outcome). `checked`: the keys the caller has
-- type-checked (key -> type). With estimates (C.est) C.took gets one {id,
-- lane, acked, released} per accepted entry, before the first write
-- (lua/includes/estimate.lua, refundEstimates). Returns the number of
-- entries refused, and a typeGuard reply when a key the acks would touch
-- holds the wrong type (then nothing was written).
local RELEASE = -3
-- The entries (ids: acks first, then fails), and of them: lane[i] the
-- lane of each accepted entry, recs[i] the records of the fails and of the
-- refused entries (to tell a stale delivery from a job that does not
-- exist), atts[i] the delivery states. Fails are checked first, then acks:
-- an id twice in one call is settled once.
local function heldEntries(C, codes)
  local acks, fails = C.acks, C.fails
  local nacks, ids = acks.n, acks.id
  if fails.n > 0 then
    ids = {}
    for i = 1, nacks do ids[i] = acks.id[i] end
    for j = 1, fails.n do ids[nacks + j] = fails.id[j] end
  end
  local lane, recs = {}, {}
  if #ids == 0 then return ids, lane, recs, nil end
  local atts = callSliced('HMGET', K.att, ids)
  local held = callSliced('ZMSCORE', K.leases, ids)
  local seen, look, nfails, ackTok, failTok = {}, {}, fails.n, acks.token, fails.token
  for k = 1, #ids do
    local i = k <= nfails and nacks + k or k - nfails
    local token = i > nacks and failTok[i - nacks] or ackTok[i]
    local id = ids[i]
    local g = held[i] and not seen[id] and heldGroup(atts[i], token)
    if g then seen[id] = true; lane[i] = g; codes[i] = OK end
    if not g or i > nacks then look[#look + 1] = i end
  end
  if #look > 0 then
    local q = {}
    for k, i in ipairs(look) do q[k] = ids[i] end
    local r = callSliced('HMGET', K.jobs, q)
    for k, i in ipairs(look) do recs[i] = r[k] end
  end
  return ids, lane, recs, atts
end
-- Fail j (entry i), accepted: back to its lane, delayed or dead (or, a
-- release, back unstarted: the attempts it is allowed rise by the one just used).
-- Each fixes its own lane. Returns its outcome.
local function failOne(Q, C, id, rec, att, j, now)
  local fails = C.fails
  local g, _, _, allowed = unpackRecord(rec)
  local before = laneState(g)
  rcall('ZREM', K.leases, id)
  addActive(Q, g, -1)
  local st
  if fails.delay[j] == RELEASE then
    rcall('HSET', K.jobs, id, withAllowed(rec, allowed + 1))
    rcall('ZADD', pendingKey(g), id, id)
    rcall('HINCRBY', K.stats, 'released', 1)
    st = FAIL_RETRY
  else
    rcall('HINCRBY', K.stats, 'failed', 1)
    st = endAttempt(Q, id, g, unpackAtt(att), fails.token[j], allowed, fails.delay[j], now, fails.reason[j])
  end
  fixRing(Q, g, before)
  return st
end
local function settle(Q, C, now, codes, checked)
  local ids, lane, recs, atts = heldEntries(C, codes)
  local nacks = C.acks.n
  local refused, took = 0, C.took
  for i = 1, #ids do
    if not lane[i] then
      codes[i] = recs[i] and ESTALE or notHeld(ids[i]); refused = refused + 1
    elseif took then
      took[#took + 1] = { ids[i], lane[i], i <= nacks, i > nacks and C.fails.delay[i - nacks] == RELEASE }
    end
  end
  -- Jobs canceled while leased settle as canceled, whatever was reported.
  if Q.cancels then
    local bad = Life.settleCanceled(Q, ids, lane, codes, now)
    if bad then return refused, bad end
  end
  -- Fails one by one (rare), then the acks.
  for j = 1, C.fails.n do
    local i = nacks + j
    if lane[i] then codes[i] = failOne(Q, C, ids[i], recs[i], atts[i], j, now) end
  end
  return refused, ackJobs(Q, C, ids, lane, atts, now, checked)
end
