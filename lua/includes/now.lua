-- Server time in milliseconds: leases and due times never use a client clock.
local function serverNowMs()
  local t = rcall('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
