--@include serviceable
-- Leases up to n heads of lane g (mint order) until now + leaseMs and appends
-- each job to `out` as: id, group, payload, token, lease deadline, enqueued
-- at, max attempts, last error. HINCRBY on the attempt count is the fencing token.
-- Returns how many were taken.
local function takeJobs(g, n, now, leaseMs, out)
  local pk = pendingKey(g)
  local deadline = S(now + leaseMs)
  local taken = 0
  for _ = 1, n do
    local head = rcall('ZPOPMIN', pk)
    if not head[1] then break end
    local id = head[1]
    local jk = jobKey(id)
    local token = rcall('HINCRBY', jk, 'att', 1)
    rcall('ZADD', K.leases, deadline, id)
    local f = rcall('HMGET', jk, 'p', 'at', 'mx', 'err')
    out[#out + 1] = id
    out[#out + 1] = g
    out[#out + 1] = f[1] or ''
    out[#out + 1] = token
    out[#out + 1] = deadline
    out[#out + 1] = f[2] or '0'
    out[#out + 1] = f[3] or '0'
    out[#out + 1] = f[4] or ''
    taken = taken + 1
  end
  if taken > 0 then
    rcall('HINCRBY', K.gactive, g, taken)
    rcall('HINCRBY', K.gserved, g, taken)
    rcall('HINCRBY', K.stats, 'pending', -taken)
    rcall('HINCRBY', K.stats, 'claimed', taken)
  end
  return taken
end
