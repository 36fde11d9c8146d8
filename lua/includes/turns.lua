--@include many
--@include record
-- Serves up to `turns` turns of the ring, `n` jobs at most in all, leased
-- until now + leaseMs, appending each job to `out` as JOB_FIELDS values: id,
-- group, payload, token, lease deadline, enqueued at, max attempts, last
-- error. Exactly what `turns` claims (or wclaims, when weighted) in a row
-- would serve from the same state:
-- - a turn rotates the ring one step (head to tail) and serves the rotated
--   lane 1 job, or when weighted K = min(weight, jobs left, limit - active);
-- - the lane leaves the ring (it was just put at the tail) when it is empty
--   or at its ceiling; no lane can join during the turns.
-- The turns run on a copy of the ring's head; the ring is then written back
-- in one LPOP and one RPUSH, and every per-lane and per-job field with one
-- call per hash. Returns the number of jobs taken.
-- wholeTurns: when weighted, stop before a turn whose K does not fit in
-- what is left of n (unless nothing was taken yet), rather than cut it
-- short: that lane is served whole by the next call (the worker engine's
-- batches, so that weights hold across batch boundaries).
local function serveTurns(n, turns, weighted, leaseMs, now, out, wholeTurns)
  local len = rcall('LLEN', K.ring)
  if len == 0 or n < 1 then return 0 end
  local m = math.min(len, turns)
  local head = rcall('LRANGE', K.ring, 0, m - 1)
  local whole = m == len  -- the turns may come round to a lane again
  local lim, wt = laneSettings(head, weighted)
  local act = readFields(K.gactive, head)
  for _, g in ipairs(head) do act[g] = tonumber(act[g] or '0') end
  local depth, servedBy, lanes = {}, {}, {}
  local dq, h = {}, 1  -- the ring as the turns see it: dq[h..]
  for i, g in ipairs(head) do dq[i] = g end
  local ids, laneOf, taken, t = {}, {}, 0, 0
  while taken < n and t < turns and h <= #dq do
    local g = dq[h]
    local k = 1
    if weighted then
      k = wt[g]
      if lim[g] then k = math.min(k, lim[g] - act[g]) end
      if k < 1 then k = 1 end  -- a ring lane is below its ceiling (I1)
      if depth[g] and depth[g] < k then k = depth[g] end
      if k > n - taken then
        if wholeTurns and taken > 0 then break end
        k = n - taken
      end
    end
    h = h + 1
    t = t + 1
    local popped = rcall('ZPOPMIN', pendingKey(g), k)
    local got = #popped / 2
    for i = 1, #popped, 2 do
      ids[#ids + 1] = popped[i]
      laneOf[#ids] = g
    end
    taken = taken + got
    act[g] = act[g] + got
    if not servedBy[g] then servedBy[g] = 0; lanes[#lanes + 1] = g end
    servedBy[g] = servedBy[g] + got
    if depth[g] then depth[g] = depth[g] - got else depth[g] = rcall('ZCARD', pendingKey(g)) end
    if depth[g] > 0 and not (lim[g] and act[g] >= lim[g]) then dq[#dq + 1] = g end
  end
  -- The ring after those turns: the visited head entries leave the front,
  -- the lanes still serviceable go to the tail in the order they were served.
  local back = {}
  if whole then
    rcall('LPOP', K.ring, len)
    for i = h, #dq do back[#back + 1] = dq[i] end
  else
    rcall('LPOP', K.ring, t)
    for i = m + 1, #dq do back[#back + 1] = dq[i] end
  end
  if #back > 0 then callSliced('RPUSH', K.ring, back) end
  if taken == 0 then return 0 end
  -- Lease the jobs: the attempt count is the fencing token.
  local recs = callSliced('HMGET', K.jobs, ids)
  local atts = callSliced('HMGET', K.att, ids)
  local errs = callSliced('HMGET', K.err, ids)
  local deadline = S(now + leaseMs)
  local attSet, leaseAdd = {}, {}
  taken = 0
  for i, id in ipairs(ids) do
    local g = laneOf[i]
    if recs[i] then
      local token = tonumber(atts[i] or '0') + 1
      local _, p, at, _, mx = unpackRecord(recs[i])
      local o = #out
      out[o + 1] = id; out[o + 2] = g; out[o + 3] = p; out[o + 4] = token
      out[o + 5] = deadline; out[o + 6] = at; out[o + 7] = mx; out[o + 8] = errs[i] or ''
      attSet[#attSet + 1] = id; attSet[#attSet + 1] = S(token)
      leaseAdd[#leaseAdd + 1] = deadline; leaseAdd[#leaseAdd + 1] = id
      taken = taken + 1
    else
      act[g] = act[g] - 1  -- an id without a record is no job: verify reports it
      servedBy[g] = servedBy[g] - 1
    end
  end
  if taken > 0 then
    callSliced('HSET', K.att, attSet)
    callSliced('ZADD', K.leases, leaseAdd)
  end
  writeCounts(K.gactive, lanes, act)
  local served = readFields(K.gserved, lanes)
  for _, g in ipairs(lanes) do served[g] = tonumber(served[g] or '0') + servedBy[g] end
  writeCounts(K.gserved, lanes, served)
  return taken
end
