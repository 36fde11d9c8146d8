--@include laneLimit
-- serviceable(g) = pending jobs AND not paused AND below its ceiling (DESIGN.md).
local function serviceable(g)
  if rcall('ZCARD', pendingKey(g)) == 0 then return false end
  if rcall('SISMEMBER', K.paused, g) == 1 then return false end
  local lim = laneLimit(g)
  if lim and tonumber(rcall('HGET', K.gactive, g) or '0') >= lim then return false end
  return true
end
