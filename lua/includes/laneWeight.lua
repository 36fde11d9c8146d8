--@include config
-- Effective weight of lane g (>= 1).
local function laneWeight(g)
  return tonumber(rcall('HGET', K.gweight, g) or '') or config().weight
end
