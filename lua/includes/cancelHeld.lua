--@include cancelJob
-- Leased jobs that were canceled (Q.cancels: marks in `cancels`, set by
-- lua/cancel.lua): whatever their holder reports, they settle as canceled
-- (Life.cancel), never retried; so does one whose lease runs out
-- (lua/includes/recover.lua).
-- Leased job id of lane g, marked `why`, leaves the leases and settles as
-- canceled; its delivery ends (counted in `failed`, as stats count every
-- delivery's end once: lua/stats.lua).
function Life.endCanceled(Q, id, g, why, now)
  local before = laneState(g)
  rcall('ZREM', K.leases, id)
  addActive(Q, g, -1)
  rcall('HINCRBY', K.stats, 'failed', 1)
  Life.cancel(Q, id, g, 'canceled', why, false, now)
  fixRing(Q, g, before)
end
-- The marked jobs among the settlements a take call accepted
-- (lua/includes/settle.lua: ids, lane[i] the lane of each accepted entry)
-- settle as canceled: codes[i] gets WAS_CANCELED and lane[i] goes false, so
-- the acks and fails that follow leave it alone. One HMGET of the marks per
-- call. Returns a typeGuard reply (nothing written) or nil.
function Life.settleCanceled(Q, ids, lane, codes, now)
  local held, q = {}, {}
  for i = 1, #ids do if lane[i] then held[#held + 1] = i; q[#q + 1] = ids[i] end end
  if #q == 0 then return nil end
  local why = callSliced('HMGET', P .. 'cancels', q)
  local marked, groups = {}, {}
  for k = 1, #q do if why[k] then marked[#marked + 1] = k; groups[#groups + 1] = lane[held[k]] end end
  if #marked == 0 then return nil end
  local bad = Life.cancelGuard(groups)
  if bad then return bad end
  for _, k in ipairs(marked) do
    local i = held[k]
    Life.endCanceled(Q, ids[i], lane[i], why[k], now)
    codes[i] = WAS_CANCELED
    lane[i] = false
  end
  return nil
end
