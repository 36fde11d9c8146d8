--@include config
-- Effective concurrency ceiling of lane g, nil = unlimited.
local function laneLimit(g)
  local l = rcall('HGET', K.glimit, g)
  if l then return tonumber(l) end
  return config().limit
end
