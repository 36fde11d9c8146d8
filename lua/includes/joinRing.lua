-- Lane g has just become serviceable: it joins the ring at the tail (I1) and
-- leaves a wake-up token for blocked claims (at most one).
local function joinRing(g)
  rcall('RPUSH', K.ring, g)
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
