-- Drops lane g from the directory once it has no live job and no setting of
-- its own, so short-lived groups do not accumulate. `live` is the lane's
-- live-job count when the caller has it (nil: read it).
local function forgetIdleLane(g, live)
  if (live or tonumber(rcall('HGET', K.glive, g) or '0')) > 0 then return end
  rcall('HDEL', K.glive, g)
  if rcall('HEXISTS', K.gweight, g) == 1 or rcall('HEXISTS', K.glimit, g) == 1
     or rcall('SISMEMBER', K.paused, g) == 1 then
    return
  end
  rcall('ZREM', K.lanes, g)
  rcall('HDEL', K.gserved, g)
end
