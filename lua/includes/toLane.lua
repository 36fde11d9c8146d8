-- Puts job id back into lane g at its mint position (score = id).
local function toLane(id, g)
  rcall('ZADD', pendingKey(g), id, id)
end
