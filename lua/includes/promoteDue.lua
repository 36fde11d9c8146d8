--@include fixRing
--@include toLane
-- Moves up to `max` due delayed jobs into their lanes (bounded work per call).
local function promoteDue(now, max)
  local ids = rcall('ZRANGEBYSCORE', K.delayed, '-inf', S(now), 'LIMIT', 0, max)
  for _, id in ipairs(ids) do
    rcall('ZREM', K.delayed, id)
    local g = rcall('HGET', jobKey(id), 'g')
    if g then
      local before = serviceable(g)
      toLane(id, g)
      fixRing(g, before)
    end
  end
end
