-- Effective concurrency ceiling of lane g, nil = unlimited. The queue
-- default sits in the same hash under the empty name (never a valid group),
-- so one HMGET answers both.
local function laneLimit(g)
  local v = rcall('HMGET', K.glimit, g, '')
  return tonumber(v[1] or v[2] or '')
end
