--@include lane
-- One turn of a lane (lua/includes/turns.lua): its jobs leave its pending
-- set, its counts follow, and its ring entry goes back to the tail, waits
-- for a token, or leaves. v: the ring view (lua/includes/ringView.lua).
-- A lane's pending set is read and popped by protected calls: one that
-- holds the wrong type (a corrupted key) counts as empty and leaves the
-- ring, and the call goes on, so earlier pops are never left half done (no
-- type check per lane on the hot path). verify reports such a key.
local POPPED_NONE = {}
-- Entry g (a lane, or a tenant for its lane's turn) served `got` jobs.
local function served(v, g, got)
  local sv = v.servedBy[g]
  if not sv then sv = 0; local lanes = v.lanes; lanes[#lanes + 1] = g end
  v.servedBy[g] = sv + got
end
-- Where entry g goes after its turn, in ring view r (the ring's, or a
-- tenant's inner ring's: lua/includes/tenantTurn.lua): with work left (d >
-- 0) and below its ceiling (l; a its active count) it goes back to r's
-- tail, or, out of tokens (tk < 1), out of the ring until its next token is
-- due at `now`, reckoned from the bucket as stored (as every later check
-- reads it). Empty or at its ceiling, it leaves. Returns 'ring', 'wait' or
-- nil (left).
local function requeue(v, r, g, d, a, l, tk, now)
  if d <= 0 or (l and a >= l) then return nil end
  if tk and tk < 1 then
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
-- Lane L's turn of k jobs (d its depth when known: nil unknown, 0 nothing
-- to pop; taken: the jobs the turns took so far), its place after it in
-- ring view r (requeue). Returns the jobs popped (id, score pairs), their
-- count, where L went and its depth.
local function laneTurn(v, r, L, k, d, taken, now)
  local key = pendingKey(L)
  local popped = d ~= 0 and rpcall('ZPOPMIN', key, k) or nil
  if not popped or popped.err then popped = POPPED_NONE; d = 0 end
  local got = #popped / 2
  local ids, laneOf = v.ids, v.laneOf
  for i = 1, #popped, 2 do
    taken = taken + 1
    ids[taken] = popped[i]
    laneOf[taken] = L
  end
  -- Active counts matter under a ceiling only (lua/includes/laneView.lua).
  local l, tk, a = v.lim[L], v.tok[L], 0
  if l then a = v.act[L] + got; v.act[L] = a end
  local sv = v.servedBy[L]
  if not sv then sv = 0; local lanes = v.lanes; lanes[#lanes + 1] = L end
  v.servedBy[L] = sv + got
  if d then d = d - got else d = rcall('ZCARD', key) end
  v.depth[L] = d
  if tk then tk = tk - got; v.tok[L] = tk end
  if d > 0 and not l and not tk then  -- the common case, as requeue has it
    local nq = r.nq + 1
    r.nq = nq
    r.q[nq] = L
    return popped, got, 'ring', d
  end
  return popped, got, requeue(v, r, L, d, a, l, tk, now), d
end
