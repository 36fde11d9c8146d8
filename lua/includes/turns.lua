--@include many
--@include record
--@include startJobs
--@include cost
--@include waits
-- Settings of `names` into the claim's tables: ceilings with their active
-- counts, weights, token buckets. `plain` (no limit, rate or throttle
-- anywhere, nor a default) reads no rate; only wclaim reads weights. A
-- function of the library, not a closure made per call.
-- (Numeric loops here and per job: lua/includes/base.lua, "Loops".)
local function loadLanes(names, lim, wt, tok, rated, act, weighted, plain, now)
  local l1, w1 = laneSettings(names, weighted)
  local limited = {}
  for i = 1, #names do
    local g = names[i]
    lim[g] = l1[g]
    if weighted then wt[g] = w1[g] end
    if l1[g] then limited[#limited + 1] = g end
  end
  -- Active counts matter only under a ceiling: read them for those lanes.
  if #limited > 0 then
    local cur = readFields(K.gactive, limited)
    for i = 1, #limited do local g = limited[i]; act[g] = tonumber(cur[g] or '') or 0 end
  end
  if plain then return end
  -- Token buckets, for the lanes with a rate limit (or a hand-set throttle).
  local q = {}
  for i, g in ipairs(names) do q[i] = g end
  q[#q + 1] = ''
  local rates, buckets = readFields(K.grate, q), readFields(K.gbucket, names)
  local dr = rates['']
  for _, g in ipairs(names) do
    local r = parseRate(rates[g] or (not (TENANTS and isTenant(g)) and dr) or nil)
    if r or buckets[g] then
      local _, tk = rateState(r, buckets[g] or nil, now)
      tok[g] = tk
      rated[g] = r or false
    end
  end
end
-- Tenant te's inner ring as the turns see it (tv: the call's views): a copy
-- of its head, read at its first turn, written back as the ring's is
-- (serveTurns). A tenant is turned at most `turns` times, each time taking
-- one lane off the head. Not a list (a corrupted key) = empty: it leaves.
local function innerView(tv, te, turns)
  local v = tv.views[te]
  if v ~= nil then return v or nil end
  local ikey = innerKey(te)
  local ilen = redis.pcall('LLEN', ikey)
  if type(ilen) ~= 'number' or ilen == 0 then tv.views[te] = false; return nil end
  local q = rcall('LRANGE', ikey, 0, math.min(ilen, turns) - 1)
  v = { key = ikey, q = q, h = 1, nq = #q, m = #q, len = ilen, whole = #q == ilen }
  tv.views[te] = v
  tv.viewed[#tv.viewed + 1] = v
  return v
end
-- Serves up to `turns` turns of the ring, `n` jobs at most in all, leased
-- until now + leaseMs, appending each job to `out` as a `job` row
-- (lua/replies.txt: JOB_FIELDS values). Tokens are made from each job's
-- previous token, the clock tick and the nonce's low bits (deliveryToken,
-- tokenClock: the caller checked the clock).
-- Exactly what `turns` claims in a row would serve from the same state:
-- - a turn rotates the ring one step (head to tail) and serves the rotated
--   lane 1 job; or, weighted, K = min(weight, depth, limit - active) jobs —
--   whole turns only: a turn that would pass n is left for the next call
--   (the first is cut to n), so every lane gets its full share per turn;
-- - the lane leaves the ring (it was just put at the tail) when it is empty
--   or at its ceiling; no lane can join during the turns.
-- One turn is one LINDEX, then one LMOVE (or LPOP) once the job is popped:
-- the lane's settings are read before the first write. More run on a copy
-- of the ring's head, written back with one LPOP and one RPUSH; per-lane and
-- per-job fields take one call per hash. Returns the number of jobs taken.
-- Cost mode (COST_Q): a lane over its share leaves the ring at its turn
-- and sits out in gdebt, spending no turn (lua/includes/cost.lua); the
-- window read is wider by COST_SKIP such lanes (a call that sets aside more
-- than the window holds ends there). Sets DEBT_MORE when
-- a call ended on its skip budget: the caller says "more due now".
local function serveTurns(n, turns, weighted, plain, leaseMs, now, nonce, out)
  if n < 1 then return 0 end
  local head, len
  local fast = turns == 1 and not COST_Q
  if fast then
    local g = rcall('LINDEX', K.ring, 0)
    if not g then return 0 end
    head, len = { g }, 1
  else
    len = rcall('LLEN', K.ring)
    if len == 0 then return 0 end
    head = rcall('LRANGE', K.ring, 0, math.min(len, COST_Q and turns + COST_SKIP or turns) - 1)
  end
  local m = #head
  local whole = not fast and m == len  -- the turns may come round to a lane again
  local cs, vOf, size, forget = nil, nil, len, {}
  -- Estimates charged by this call's turns: entry -> its new v (written at
  -- the end), and each entry's weight, read at its first charge.
  local estV, estW = nil, nil
  if COST_EST then estV, estW = {}, {} end
  if COST_Q then
    cs = costFloor(len)
    vOf = readFields(K.gvt, head)  -- as stored: lifted where used (effV), by the V of that moment
  end
  -- Settings of the head's entries, then of entries coming back and of a
  -- tenant's lanes as its turns reach them (loadLanes, above).
  local lim, wt, tok, rated, act = {}, weighted and {} or nil, {}, {}, {}
  if weighted or not plain then loadLanes(head, lim, wt, tok, rated, act, weighted, plain, now) end
  local depth, servedBy, lanes, nl = {}, {}, {}, 0
  local dq, h, nq = head, 1, m  -- the ring as the turns see it: dq[h..nq]
  -- Cost mode: lanes in gdebt that a risen V (or an emptied ring) lets back
  -- join the tail mid-call, where the next call's start would put them, with
  -- their settings read as the head's were.
  local function readmit(empty)
    local back = debtReturning(cs, empty)
    if cs.lifted then cs.lifted = nil end
    local came = {}
    for _, g in ipairs(back) do
      rcall('ZREM', K.gdebt, g)
      local st, due = laneState(g)
      if st == 'ring' then
        nq, size = nq + 1, size + 1
        dq[nq] = g
        came[#came + 1] = g
        vOf[g] = rcall('HGET', K.gvt, g)
      elseif st == 'wait' then
        rcall('ZADD', K.throttled, S(due), g)
      end
    end
    if #came > 0 and (weighted or not plain) then loadLanes(came, lim, wt, tok, rated, act, weighted, plain, now) end
    return #came
  end
  local ids, laneOf, taken, t, waiting = {}, {}, 0, 0, {}
  -- A lane's pending set is read and popped by protected calls: one that
  -- holds the wrong type (a corrupted key) counts as empty and leaves the
  -- ring, and the call goes on, so earlier pops are never left half done
  -- (no type check per lane on the hot path). verify reports such a key.
  -- A tenant's inner ring likewise: not a list = empty (the tenant leaves).
  local pcall_ = redis.pcall
  local tv = TENANTS and { views = {}, viewed = {} }  -- the tenants' inner rings read (innerView)
  while taken < n and t < turns and (h <= nq or cs) do
    if cs then
      -- Lanes over their share sit out: off the ring, no turn spent.
      local sk = 0
      while h <= nq and effV(cs, vOf[dq[h]]) > cs.V + COST_Q and sk < COST_SKIP do
        local g = dq[h]
        rcall('ZADD', K.gdebt, fmtV(effV(cs, vOf[g])), g)  -- now: a rotation ending in this call may let it back
        h, sk, size = h + 1, sk + 1, size - 1
        if costVisit(cs, nil, size) then readmit(false) end
      end
      if h > nq and (not whole or readmit(true) == 0) then break end
      -- Past the window read (lanes set aside took its room): the rest of
      -- the ring is unread, so the next call goes on from there.
      if not whole and h > m then DEBT_MORE = true; break end
      if sk == COST_SKIP and effV(cs, vOf[dq[h]]) > cs.V + COST_Q then DEBT_MORE = true; break end
    end
    local g = dq[h]
    -- A tenant's turn (g = `T/`) serves the head lane of its inner ring;
    -- the lane's own ceiling and tokens hold, and the tenant's on top.
    local L, iv = g, nil
    if TENANTS and string.byte(g, -1) == 47 then
      iv = innerView(tv, g, turns)
      L = iv and iv.q[iv.h] or nil
      if L and lim[L] == nil and (weighted or not plain) then
        loadLanes({ L }, lim, wt, tok, rated, act, weighted, plain, now)
      end
    end
    local key, d, l, tk = nil, nil, nil, nil
    if L then key, d, l, tk = pendingKey(L), depth[L], lim[L], tok[L] end
    local k = 1
    if weighted and L then
      if not d then
        d = pcall_('ZCARD', key)
        if type(d) ~= 'number' then d = 0 end
      end
      k = math.min(wt[g], d)  -- a tenant's turn: the tenant's weight
      if l then k = math.min(k, l - act[L]) end
      if tk then k = math.min(k, math.floor(tk)) end
      if iv then
        if lim[g] then k = math.min(k, lim[g] - act[g]) end
        if tok[g] then k = math.min(k, math.floor(tok[g])) end
      end
      if k < 1 then k = 1 end  -- a ring lane is below its ceiling (I1)
      if taken + k > n then
        if taken > 0 then depth[L] = d; break end
        k = n
      end
    end
    h = h + 1
    t = t + 1
    local popped = L and d ~= 0 and pcall_('ZPOPMIN', key, k) or nil
    if not popped or popped.err then popped = {}; d = 0 end
    local got = #popped / 2
    for i = 1, #popped, 2 do
      taken = taken + 1
      ids[taken] = popped[i]
      laneOf[taken] = L
    end
    -- Cost mode: the jobs of the turn that carry an estimate charge their
    -- entry at once (lua/includes/cost.lua, COST_EST), before this visit
    -- counts, as a single claim's write would before the next claim.
    local est = 0
    if COST_EST and got > 0 then
      local popIds = {}
      for i = 1, #popped, 2 do popIds[#popIds + 1] = popped[i] end
      est = estimateOf(popIds)
      if est > 0 then
        if not estW[g] then estW[g] = entryWeight(g) end
        est = est / estW[g]
        vOf[g] = effV(cs, vOf[g]) + est
        estV[g] = vOf[g]
      end
    end
    local a = 0
    if L then
      a = (act[L] or 0) + got
      act[L] = a
      local sv = servedBy[L]
      if not sv then sv = 0; nl = nl + 1; lanes[nl] = L end
      servedBy[L] = sv + got
      if d then d = d - got else d = rcall('ZCARD', key) end
      depth[L] = d
      if tk then tk = tk - got; tok[L] = tk end
    end
    if iv then
      -- The lane's place in the inner ring, as a plain lane's in the ring.
      iv.h = iv.h + 1
      if d > 0 and not (l and a >= l) then
        if tk and tk < 1 then
          local _, _, due = rateState(rated[L], packBucket(tk, now), now)
          waiting[#waiting + 1] = S(due)
          waiting[#waiting + 1] = L
        else
          iv.nq = iv.nq + 1
          iv.q[iv.nq] = L
        end
      end
      -- The tenant's own counts; it stays while its inner ring has a lane.
      a = (act[g] or 0) + got
      act[g] = a
      local sv = servedBy[g]
      if not sv then sv = 0; nl = nl + 1; lanes[nl] = g end
      servedBy[g] = sv + got
      tk = tok[g]
      if tk then tk = tk - got; tok[g] = tk end
      -- Its lanes left: those of the copy not yet turned, and past the copy
      -- the unread rest of its inner ring.
      l, d = lim[g], iv.nq - iv.h + 1 + (iv.whole and 0 or iv.len - iv.m)
    elseif not L then
      d = 0  -- a tenant entry with an empty (or broken) inner ring leaves
    end
    if d > 0 and not (l and a >= l) then
      if tk and tk < 1 then
        -- Out of tokens: out of the ring until its next one is due, reckoned
        -- from the bucket as stored (as every later check reads it).
        local _, _, due = rateState(rated[g], packBucket(tk, now), now)
        waiting[#waiting + 1] = S(due)
        waiting[#waiting + 1] = g
        size = size - 1
      else
        nq = nq + 1
        dq[nq] = g
      end
    elseif cs then
      size = size - 1
      -- Back later, it starts level: its v goes; unless this turn charged
      -- it an estimate, which stays charged until its job settles.
      if d == 0 and est == 0 then
        forget[#forget + 1] = g
        if estV then estV[g] = nil end
      end
    end
    if cs and costVisit(cs, effV(cs, vOf[g]), size) then readmit(false) end
  end
  -- The ring after those turns: the visited head entries leave the front,
  -- the lanes still serviceable go to the tail in the order they were served.
  if fast then
    -- The turn rotates the lane to the tail, or drops it.
    if nq == 2 then rcall('LMOVE', K.ring, K.ring, 'LEFT', 'RIGHT') else rcall('LPOP', K.ring) end
  else
    local back = {}
    if whole then
      rcall('LPOP', K.ring, len)
      for i = h, nq do back[#back + 1] = dq[i] end
    else
      if h > 1 then rcall('LPOP', K.ring, h - 1) end  -- the visited head entries
      for i = m + 1, nq do back[#back + 1] = dq[i] end
    end
    if #back > 0 then callSliced('RPUSH', K.ring, back) end
  end
  -- The inner rings after those turns, as the ring: a whole one rewritten
  -- unless it came round to where it was (a tenant of one lane: no write),
  -- one lane rotated by one LMOVE, else the visited head off and the lanes
  -- still serviceable onto the tail.
  if tv then
    for _, v in ipairs(tv.viewed) do
      local back = {}
      if v.whole then
        local same = v.nq - v.h + 1 == v.len
        for i = 0, same and v.len - 1 or -1 do
          if v.q[v.h + i] ~= v.q[1 + i] then same = false; break end
        end
        if not same then
          rcall('LPOP', v.key, v.len)
          for i = v.h, v.nq do back[#back + 1] = v.q[i] end
        end
      elseif v.h == 2 and v.nq == v.m + 1 and v.q[v.nq] == v.q[1] then
        rcall('LMOVE', v.key, v.key, 'LEFT', 'RIGHT')
      else
        if v.h > 1 then rcall('LPOP', v.key, v.h - 1) end
        for i = v.m + 1, v.nq do back[#back + 1] = v.q[i] end
      end
      if #back > 0 then callSliced('RPUSH', v.key, back) end
    end
  end
  if #waiting > 0 then callSliced('ZADD', K.throttled, waiting) end
  if cs then
    saveFloor(cs)
    if #forget > 0 then callSliced('HDEL', K.gvt, forget) end
    if estV then
      local set = {}
      for g, v in pairs(estV) do set[#set + 1] = g; set[#set + 1] = fmtV(v) end
      if #set > 0 then callSliced('HSET', K.gvt, set) end
    end
  end
  if not plain then
    local spent = {}
    for _, g in ipairs(lanes) do
      if tok[g] and rated[g] then spent[#spent + 1] = g; spent[#spent + 1] = packBucket(tok[g], now) end
    end
    if #spent > 0 then callSliced('HSET', K.gbucket, spent) end
  end
  if taken == 0 then return 0 end
  -- Lease the jobs: the attempt count rises, the token rises.
  local recs = callSliced('HMGET', K.jobs, ids)
  local atts = callSliced('HMGET', K.att, ids)
  local deadline = S(now + leaseMs)
  local tickNow, low = tokenClock(now, nonce)
  local attSet, leaseAdd = {}, {}
  local first = WAITS and {} or nil  -- the jobs on their first delivery (wait figures)
  local o = #out
  taken = 0
  for i = 1, #ids do
    local id, rec = ids[i], recs[i]
    if rec then
      local att, err, prev = unpackAtt(atts[i])
      att = att + 1
      if first and att == 1 then first[#first + 1] = i end
      local delivery = packAttWith(attHead(deliveryToken(prev, tickNow, low), att), laneOf[i], err)
      out[o + JOB_ID] = id; out[o + JOB_LEASE_UNTIL] = deadline
      out[o + JOB_DELIVERY] = delivery; out[o + JOB_RECORD] = rec
      o = o + JOB_FIELDS
      local j = taken + taken
      attSet[j + 1] = id; attSet[j + 2] = delivery
      leaseAdd[j + 1] = deadline; leaseAdd[j + 2] = id
      taken = taken + 1
    else
      local g = laneOf[i]
      servedBy[g] = servedBy[g] - 1  -- an id without a record is no job: verify reports it
    end
  end
  if taken > 0 then
    callSliced('HSET', K.att, attSet)
    callSliced('ZADD', K.leases, leaseAdd)
    if OUTCOMES then startJobs(attSet, now) end  -- first-started times, claimed events
    if WAITS then recordWaits(lanes, servedBy, first, laneOf, recs, weighted, now) end
  end
  addCounts(K.gactive, lanes, servedBy)
  addCounts(K.gserved, lanes, servedBy)
  return taken
end
