--@include onActiveDrop
--@include addActive
--@include addLive
--@include forgetIdleLane
-- Acknowledges job `id` if `token` (a number) is its current attempt and it
-- is leased: the job is deleted and its lane's counts and ring place fixed.
-- Returns OK, or ENOTFOUND / ESTALE and a message, having changed nothing.
local function ackJob(id, token)
  local jk = jobKey(id)
  local f = rcall('HMGET', jk, 'g', 'att')
  if not f[1] then return ENOTFOUND, 'job ' .. id .. ' not found' end
  if tonumber(f[2] or '0') ~= token or not rcall('ZSCORE', K.leases, id) then
    return ESTALE, 'job ' .. id .. ' token ' .. S(token) .. ' is stale (current ' .. (f[2] or '0') .. ')'
  end
  local g = f[1]
  rcall('DEL', jk)
  rcall('ZREM', K.leases, id)
  onActiveDrop(g, addActive(g, -1))
  rcall('HINCRBY', K.stats, 'acked', 1)
  forgetIdleLane(g, addLive(g, -1))
  return OK
end
