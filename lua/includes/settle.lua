--@include attempt
--@include many
--@include typeGuard
-- Settlement of held jobs in one pass: acks (ids ackIds, tokens ackToks)
-- and fails (id, token, retry delay, reason; delay RELEASE = give back
-- unstarted). Each is checked first — the job exists (else NOTFOUND),
-- `token` is the token of its current delivery and it is leased (else
-- STALE), and no earlier entry of the call settled it — then the accepted
-- ones are applied: fails one by one, acks with one write per hash for the
-- whole list. Lane counts and ring places are fixed once per lane. codes[i]
-- gets each entry's status (fails: the outcome). Returns the number of
-- entries refused, and a typeGuard reply when a key the acks would touch
-- holds the wrong type (then nothing was written). `plain`: the caller knows
-- no limit exists anywhere (lua/take.lua), so no limit is read.
local RELEASE = -3
-- Keys an ack writes or reads after its first write on its rare paths: a
-- lane freed from its ceiling (laneState, joinRing) and a lane left idle
-- (forgetIdleLane). Its common path reads jobs, att, leases, gactive, glive
-- and glimit before writing them, and its first write is to stats.
local FREED_KEYS = { 'paused', 'grate', 'gbucket', 'ring', 'wake', 'throttled' }
local IDLE_KEYS = { 'gweight', 'paused', 'grate', 'gcap', 'lanes', 'gserved' }
local function settle(ackIds, ackToks, fails, now, codes, plain)
  local ids = ackIds
  if #fails > 0 then
    ids = {}
    for i, id in ipairs(ackIds) do ids[i] = id end
    for _, f in ipairs(fails) do ids[#ids + 1] = f[1] end
  end
  if #ids == 0 then return 0 end
  local recs = callSliced('HMGET', K.jobs, ids)
  local atts = callSliced('HMGET', K.att, ids)
  local held = callSliced('ZMSCORE', K.leases, ids)
  local seen, refused = {}, 0
  local function check(i, token)
    local id = ids[i]
    if not recs[i] then return ENOTFOUND end
    if seen[id] or not held[i] or attToken(atts[i]) ~= token then return ESTALE end
    seen[id] = true
    return OK
  end
  -- Fails first, one by one (rare): each fixes its own lane.
  local nacks = #ackIds
  for j, f in ipairs(fails) do
    local i = nacks + j
    local st = check(i, f[2])
    if st == OK then
      local id = ids[i]
      local g, _, _, cap = unpackRecord(recs[i])
      local before = laneState(g)
      rcall('ZREM', K.leases, id)
      addActive(g, -1)
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
    else
      refused = refused + 1
    end
    codes[i] = st
  end
  -- Acks: one write per hash for the whole list, counts per lane.
  local done, lanes, dropped = {}, {}, {}
  for i = 1, nacks do
    local st = check(i, ackToks[i])
    codes[i] = st
    if st == OK then
      done[#done + 1] = ids[i]
      local g = recordGroup(recs[i])
      if not dropped[g] then lanes[#lanes + 1] = g; dropped[g] = 0 end
      dropped[g] = dropped[g] + 1
    else
      refused = refused + 1
    end
  end
  if #done == 0 then return refused end
  -- Everything the acks read comes before their first write: the counts and
  -- limits of their lanes, and which lanes go idle or leave their limit.
  local minus = {}
  for _, g in ipairs(lanes) do minus[g] = -dropped[g] end
  local act0, live0 = readCounts(K.gactive, lanes), readCounts(K.glive, lanes)
  local lim = plain and {} or laneSettings(lanes, false)
  local freed, idle = {}, {}
  for i, g in ipairs(lanes) do
    -- Freed from its ceiling: the lane rejoins if it has work, runs and has
    -- a token (or waits for one).
    local l, a = lim[g], act0[i]
    if l and a >= l and a - dropped[g] < l then freed[#freed + 1] = g end
    if live0[i] - dropped[g] <= 0 then idle[#idle + 1] = g end
  end
  -- Those rare paths touch more keys: checked now, before the first write
  -- (with fails, the caller checked every key).
  if #fails == 0 and #freed + #idle > 0 then
    local want = {}
    for _, name in ipairs(#freed > 0 and FREED_KEYS or {}) do want[K[name]] = KEY_TYPES[name] end
    for _, name in ipairs(#idle > 0 and IDLE_KEYS or {}) do want[K[name]] = KEY_TYPES[name] end
    local bad = typeGuard(want)
    if bad then return refused, bad end
  end
  -- The first write: a wrong-typed stats key fails it whole.
  rcall('HINCRBY', K.stats, 'acked', #done)
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
