--@include promoteDue
--@include reclaimExpired
--@include takeJobs
--@include laneWeight
--@include laneLimit
--@include nextDue
-- One turn of the ring: bring back due work (bounded), rotate the ring one
-- step with LMOVE, serve the rotated lane up to `max` jobs (1 for claim; for
-- wclaim K = min(weight, depth, limit - active, max)), and take the lane out
-- of the ring (LREM from the tail, where the rotation put it: O(1)) if it is
-- no longer serviceable. Returns the reply array: {OK, n, jobs...} or
-- {EMPTY, ms until the next due time or -1}.
local function claimTurn(leaseMs, max, weighted, chainWake)
  local now = serverNowMs()
  promoteDue(now, 32)
  reclaimExpired(now, 32)
  local g = rcall('LMOVE', K.ring, K.ring, 'LEFT', 'RIGHT')
  if not g then return { EMPTY, nextDue(now) } end
  local lim = laneLimit(g)
  local k = 1
  if weighted then
    k = math.min(laneWeight(g), max)
    if lim then k = math.min(k, lim - tonumber(rcall('HGET', K.gactive, g) or '0')) end
    if k < 1 then k = 1 end -- a ring lane is below its ceiling (I1)
  end
  local out = { OK, 0 }
  local taken, active = takeJobs(g, k, now, leaseMs, out)
  out[2] = taken
  -- The lane was in the ring, so it is not paused: only its depth and its
  -- ceiling can have changed.
  if (lim and active >= lim) or rcall('EXISTS', pendingKey(g)) == 0 then
    rcall('LREM', K.ring, -1, g)
  end
  -- A blocked claimer woke for this work; pass the wake-up on while work remains.
  if chainWake and rcall('LLEN', K.wake) == 0 and rcall('LLEN', K.ring) > 0 then
    rcall('RPUSH', K.wake, '1')
  end
  return out
end
