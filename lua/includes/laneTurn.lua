--@include lane
-- One turn of a lane (lua/includes/turns.lua): its jobs leave its pending
-- set, its counts follow, and its ring entry goes back to the tail, waits
-- for a token, or leaves. v: the ring view (lua/includes/ringView.lua).
-- A lane's pending set is read and popped by protected calls: one that
-- holds the wrong type (a corrupted key) counts as empty and leaves the
-- ring, and the call goes on, so earlier pops are never left half done (no
-- type check per lane on the hot path). verify reports such a key.
local NONE = {}
-- Entry g (a lane, or a tenant for its lane's turn) served `got` jobs.
local function served(v, g, got)
  local sv = v.servedBy[g]
  if not sv then sv = 0; local lanes = v.lanes; lanes[#lanes + 1] = g end
  v.servedBy[g] = sv + got
end
-- Lane L's turn of k jobs; d its depth when known (nil: unknown, 0:
-- nothing to pop). Returns the jobs popped (id, score pairs), their count,
-- the lane's depth, active count and tokens after the turn (tokens nil: no
-- bucket).
local function laneTurn(v, L, k, d)
  local key = pendingKey(L)
  local popped = d ~= 0 and redis.pcall('ZPOPMIN', key, k) or nil
  if not popped or popped.err then popped = NONE; d = 0 end
  local got = #popped / 2
  local taken, ids, laneOf = v.taken, v.ids, v.laneOf
  for i = 1, #popped, 2 do
    taken = taken + 1
    ids[taken] = popped[i]
    laneOf[taken] = L
  end
  v.taken = taken
  local a = (v.act[L] or 0) + got
  v.act[L] = a
  served(v, L, got)
  if d then d = d - got else d = rcall('ZCARD', key) end
  v.depth[L] = d
  local tk = v.tok[L]
  if tk then tk = tk - got; v.tok[L] = tk end
  return popped, got, d, a, tk
end
-- Where entry g goes after its turn, in ring view r (the ring's, or a
-- tenant's inner ring's: lua/includes/tenantTurn.lua): with work left (d >
-- 0) and below its ceiling (l; a its active count) it goes back to r's
-- tail, or, out of tokens (tk < 1), out of the ring until its next token is
-- due, reckoned from the bucket as stored (as every later check reads it).
-- Empty or at its ceiling, it leaves. Returns 'ring', 'wait' or nil (left).
local function requeue(v, r, g, d, a, l, tk)
  if d <= 0 or (l and a >= l) then return nil end
  if tk and tk < 1 then
    local now = v.now
    local _, _, due = rateState(v.rated[g], packBucket(tk, now), now)
    local w = v.waiting
    w[#w + 1] = S(due)
    w[#w + 1] = g
    return 'wait'
  end
  local nq = r.nq + 1
  r.nq = nq
  r.q[nq] = g
  return 'ring'
end
