-- gactive[g] += n, deleting the field at zero so the hash holds only lanes
-- with leased jobs (the default-limit change walks it). Returns the new count.
local function addActive(g, n)
  local v = rcall('HINCRBY', K.gactive, g, n)
  if v <= 0 then rcall('HDEL', K.gactive, g) end
  return v
end
