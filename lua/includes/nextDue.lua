-- Milliseconds until the next delayed job falls due or lease expires, -1 if
-- none: a blocked claim sleeps no longer than this.
local function nextDue(now)
  local best = -1
  for _, key in ipairs({ K.delayed, K.leases }) do
    local h = rcall('ZRANGE', key, 0, 0, 'WITHSCORES')
    if h[2] then
      local d = math.max(0, tonumber(h[2]) - now)
      if best < 0 or d < best then best = d end
    end
  end
  return best
end
