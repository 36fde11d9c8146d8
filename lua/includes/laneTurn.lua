--@include laneView
-- One turn of a lane (lua/includes/turns.lua): its jobs leave its pending
-- set, its counts follow, and its ring entry goes back to the tail, or
-- where its ceiling and tokens say (requeue: lua/includes/laneView.lua).
-- v: the ring view (lua/includes/ringView.lua).
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
