--@include attempt
--@include many
--@include typeGuard
--@include finishAcks
--@include okey
--@include notHeld
-- Settlement of held jobs in one pass: acks (ids ackIds, tokens ackToks)
-- and fails (id, token, retry delay, reason; delay RELEASE = give back
-- unstarted); ids and tokens are the decimal strings a claim returned. Each
-- is checked first — its delivery state carries `token` and it is leased
-- (else STALE, or NOTFOUND for an id never minted: notHeld), and no earlier
-- entry of the call settled it — then the accepted ones are applied: fails
-- one by one, acks with one write per hash for the whole list. An ack reads
-- no record: its lane is in its delivery state. Lane counts and ring places
-- are fixed once per lane. codes[i] gets each entry's status (fails: the
-- outcome). Returns the number of entries refused, and a typeGuard reply
-- when a key the acks would touch holds the wrong type (then nothing was
-- written). `plain`: the caller knows no limit exists anywhere
-- (lua/take.lua), so no limit is read. `checked`: the keys the caller has
-- type-checked (key -> type). `results`: id -> result bytes of an ack, kept
-- with a retained outcome (lua/includes/finishAcks.lua). `took` (may be
-- nil) gets one {id, lane, acked, released} per accepted entry, before
-- the first write (lua/includes/cost.lua, refundEstimates).
local RELEASE = -3
-- Keys an ack writes or reads after its first write on its rare paths: a
-- lane freed from its ceiling (laneState, joinRing) and a lane left idle
-- (forgetIdleLane). Its common path reads att, leases, gactive, glive and
-- glimit before writing them, and its first write is to stats.
local FREED_KEYS = { 'paused', 'grate', 'gbucket', 'ring', 'wake', 'throttled' }
local IDLE_KEYS = { 'gweight', 'paused', 'grate', 'gcap', 'lanes', 'gserved' }
local function settle(ackIds, ackToks, fails, now, codes, plain, checked, results, took)
  local nacks = #ackIds
  local ids = ackIds
  if #fails > 0 then
    ids = {}
    for i, id in ipairs(ackIds) do ids[i] = id end
    for _, f in ipairs(fails) do ids[#ids + 1] = f[1] end
  end
  if #ids == 0 then return 0 end
  local atts = callSliced('HMGET', K.att, ids)
  local held = callSliced('ZMSCORE', K.leases, ids)
  -- Fails first, then acks: an id twice in one call is settled once.
  local seen, lane, look = {}, {}, {}
  local function check(i, token)
    local id = ids[i]
    local g = held[i] and not seen[id] and heldGroup(atts[i], token)
    if g then seen[id] = true; lane[i] = g; codes[i] = OK else look[#look + 1] = i end
  end
  for j, f in ipairs(fails) do
    local i = nacks + j
    check(i, f[2])
    if lane[i] then look[#look + 1] = i end
  end
  for i = 1, nacks do check(i, ackToks[i]) end
  -- The records of the fails, and of the refused entries (to tell a stale
  -- delivery from a job that does not exist).
  local recs = {}
  if #look > 0 then
    local q = {}
    for k, i in ipairs(look) do q[k] = ids[i] end
    local r = callSliced('HMGET', K.jobs, q)
    for k, i in ipairs(look) do recs[i] = r[k] end
  end
  local refused = 0
  for i = 1, #ids do
    if not lane[i] then
      codes[i] = recs[i] and ESTALE or notHeld(ids[i]); refused = refused + 1
    elseif took then
      took[#took + 1] = { ids[i], lane[i], i <= nacks, i > nacks and fails[i - nacks][3] == RELEASE }
    end
  end
  -- Fails one by one (rare): each fixes its own lane.
  for j, f in ipairs(fails) do
    local i = nacks + j
    if lane[i] then
      local id = ids[i]
      local g, _, _, cap = unpackRecord(recs[i])
      local before = laneState(g)
      rcall('ZREM', K.leases, id)
      addActive(g, -1)
      local st
      if f[3] == RELEASE then
        -- Not an attempt of the job's: the cap rises by the one just used.
        rcall('HSET', K.jobs, id, withCap(recs[i], cap + 1))
        rcall('ZADD', pendingKey(g), id, id)
        rcall('HINCRBY', K.stats, 'released', 1)
        st = FAIL_RETRY
      else
        rcall('HINCRBY', K.stats, 'failed', 1)
        local att = unpackAtt(atts[i])
        st = endAttempt(id, g, att, f[2], cap, f[3], now, f[4])
      end
      fixRing(g, before)
      codes[i] = st
    end
  end
  -- Acks: one write per hash for the whole list, counts per lane.
  local done, lanes, dropped, doneAtt = {}, {}, {}, {}
  for i = 1, nacks do
    local g = lane[i]
    if g then
      done[#done + 1] = ids[i]
      doneAtt[#done] = atts[i]
      if not dropped[g] then lanes[#lanes + 1] = g; dropped[g] = 0 end
      dropped[g] = dropped[g] + 1
    end
  end
  if #done == 0 then return refused end
  -- A tenant's counts fall with its lanes' (gactive[T/], glive[T/]); its
  -- entry comes first, so a tenant freed from its limit is fixed before its
  -- lanes are (lua/includes/lane.lua, fixRing).
  if TENANTS then
    local tenants = {}
    for i = 1, #lanes do
      local te = tenantOf(lanes[i])
      if te then
        if not dropped[te] then tenants[#tenants + 1] = te; dropped[te] = 0 end
        dropped[te] = dropped[te] + dropped[lanes[i]]
      end
    end
    if #tenants > 0 then
      for i = 1, #lanes do tenants[#tenants + 1] = lanes[i] end
      lanes = tenants
    end
  end
  -- Everything the acks read comes before their first write: the counts and
  -- limits of their lanes, and which lanes go idle or leave their limit.
  local act0, live0 = readCounts(K.gactive, lanes), readCounts(K.glive, lanes)
  local lim = plain and {} or laneSettings(lanes, false)
  local minus, freed, idle = {}, {}, {}
  for i = 1, #lanes do  -- numeric: lua/includes/base.lua, "Loops"
    local g = lanes[i]
    local dn = dropped[g]
    minus[g] = -dn
    -- Freed from its ceiling: the lane rejoins if it has work, runs and has
    -- a token (or waits for one).
    local l, a = lim[g], act0[i]
    if l and a >= l and a - dn < l then freed[#freed + 1] = g end
    if live0[i] - dn <= 0 then idle[#idle + 1] = g end
  end
  -- The jobs hash (the acks read no record), and the keys of those rare
  -- paths: checked now, before the first write, unless the caller has.
  local want = {}
  local function need(name) if not checked[K[name]] then want[K[name]] = KEY_TYPES[name] end end
  need('jobs')
  if OUTCOMES then
    need('config')
    for _, name in ipairs({ 'done', 'doneexp', 'donecnt', 'fin', 'started', 'keep', 'waiters', 'progress', 'events' }) do
      if not checked[okey(name)] then want[okey(name)] = KEY_TYPES[name] end
    end
  end
  for _, name in ipairs(#freed > 0 and FREED_KEYS or {}) do need(name) end
  if #freed > 0 then
    for _, g in ipairs(TENANTS and freed or {}) do if tenantOf(g) or isTenant(g) then laneKeyTypes(g, want) end end
    if COST_Q then need('gdebt') end
  end
  for _, name in ipairs(#idle > 0 and IDLE_KEYS or {}) do need(name) end
  local bad = typeGuard(want)
  if bad then return refused, bad end
  -- The first write: a wrong-typed stats key fails it whole.
  rcall('HINCRBY', K.stats, 'acked', #done)
  if OUTCOMES then finishAcks(done, results or {}, now, doneAtt) end
  callSliced('HDEL', K.jobs, done)
  callSliced('HDEL', K.att, done)
  callSliced('ZREM', K.leases, done)
  writeCounts(K.gactive, lanes, act0, minus)
  writeCounts(K.glive, lanes, live0, minus)
  for _, g in ipairs(freed) do
    local st, due = laneState(g)
    if st == 'ring' then joinRing(g) elseif st == 'wait' then rcall('ZADD', K.throttled, S(due), g) end
  end
  for _, g in ipairs(idle) do forgetIdleLane(g) end
  return refused
end
