--@include laneLimit
--@include joinRing
-- One leased job of lane g ended and nothing else of the lane changed (its
-- pending set and pause are as they were); gactive is now `active`. The lane
-- can then only have become serviceable, and only by dropping to one below
-- its ceiling: O(1) instead of a before/after comparison.
local function onActiveDrop(g, active)
  local lim = laneLimit(g)
  if lim and active == lim - 1 and rcall('ZCARD', pendingKey(g)) > 0
     and rcall('SISMEMBER', K.paused, g) == 0 then
    joinRing(g)
  end
end
