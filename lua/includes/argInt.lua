-- Parses a decimal integer argument in [lo, hi]; nil when it is not one.
local function argInt(s, lo, hi)
  if type(s) ~= 'string' or not string.match(s, '^%-?%d+$') or #s > 16 then return nil end
  local n = tonumber(s)
  if n < lo or n > hi then return nil end
  return n
end
