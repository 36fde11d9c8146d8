-- Queue-wide defaults, read once per script run.
local CFG
local function config()
  if not CFG then
    local v = rcall('HMGET', K.config, 'weight', 'limit', 'maxatt')
    CFG = { weight = tonumber(v[1]) or 1, limit = tonumber(v[2]), maxatt = tonumber(v[3]) or 3 }
  end
  return CFG
end
