--@include serviceable
-- Keeps I1 after a change to lane g whose serviceability before the change
-- was `before`: RPUSH when it became serviceable, LREM when it stopped. A lane
-- joining the ring leaves a wake-up token for blocked claims (at most one).
local function fixRing(g, before)
  local after = serviceable(g)
  if after and not before then
    rcall('RPUSH', K.ring, g)
    if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
  elseif before and not after then
    rcall('LREM', K.ring, 1, g)
  end
end
