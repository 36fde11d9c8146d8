-- Counts a live job (pending, leased or delayed) for lane g and lists the lane.
local function addLive(g, n)
  rcall('HINCRBY', K.glive, g, n)
  if n > 0 then rcall('ZADD', K.lanes, 'NX', 0, g) end
end
