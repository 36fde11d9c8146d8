-- Leases up to n heads of lane g (mint order) until now + leaseMs and appends
-- each job to `out` as: id, group, payload, token, lease deadline, enqueued
-- at, max attempts, last error. HINCRBY on the attempt count is the fencing
-- token. Returns how many were taken and the lane's new gactive.
local function takeJobs(g, n, now, leaseMs, out)
  local heads = rcall('ZPOPMIN', pendingKey(g), n)
  local taken = #heads / 2
  if taken == 0 then return 0, tonumber(rcall('HGET', K.gactive, g) or '0') end
  local deadline = S(now + leaseMs)
  local lease = {}
  for i = 1, #heads, 2 do
    local id = heads[i]
    local jk = jobKey(id)
    local token = rcall('HINCRBY', jk, 'att', 1)
    local f = rcall('HMGET', jk, 'p', 'at', 'mx', 'err')
    local o = #out
    out[o + 1] = id
    out[o + 2] = g
    out[o + 3] = f[1] or ''
    out[o + 4] = token
    out[o + 5] = deadline
    out[o + 6] = f[2] or '0'
    out[o + 7] = f[3] or '0'
    out[o + 8] = f[4] or ''
    lease[#lease + 1] = deadline
    lease[#lease + 1] = id
    if #lease >= 1000 then  -- unpack() has a stack limit: ZADD in slices
      rcall('ZADD', K.leases, unpack(lease))
      lease = {}
    end
  end
  if #lease > 0 then rcall('ZADD', K.leases, unpack(lease)) end
  local active = rcall('HINCRBY', K.gactive, g, taken)
  rcall('HINCRBY', K.gserved, g, taken)
  return taken, active
end
