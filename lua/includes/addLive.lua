-- Counts a live job (pending, leased or delayed) for lane g and lists the
-- lane. Returns the lane's new live count.
local function addLive(g, n)
  local v = rcall('HINCRBY', K.glive, g, n)
  if n > 0 then rcall('ZADD', K.lanes, 'NX', 0, g) end
  return v
end
