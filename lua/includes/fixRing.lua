--@include serviceable
--@include joinRing
-- Keeps I1 after a change to lane g whose serviceability before the change
-- was `before`: RPUSH when it became serviceable, LREM when it stopped.
local function fixRing(g, before)
  local after = serviceable(g)
  if after and not before then
    joinRing(g)
  elseif before and not after then
    rcall('LREM', K.ring, 1, g)
  end
end
