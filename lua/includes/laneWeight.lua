-- Effective weight of lane g (>= 1); the queue default is gweight[''].
local function laneWeight(g)
  local v = rcall('HMGET', K.gweight, g, '')
  return tonumber(v[1] or v[2] or '') or 1
end
