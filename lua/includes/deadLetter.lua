--@include addLive
--@include forgetIdleLane
-- Moves job id (already out of every other place) of lane g to the dead set.
local function deadLetter(id, g, now, reason)
  rcall('ZADD', K.dead, S(now), id)
  if reason then rcall('HSET', jobKey(id), 'err', reason) end
  rcall('HINCRBY', K.stats, 'dead', 1)
  forgetIdleLane(g, addLive(g, -1))
end
