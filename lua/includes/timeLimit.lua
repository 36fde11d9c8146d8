--@include life
-- Time limits (Q.timeouts; docs/architecture.md, "Lifecycle"): an attempt
-- may run for a job's own limit (hash `tmo`, ms, given at enqueue) or else
-- the queue's default (config `timeout`). The worker engine holding the job
-- keeps it by its own clock from the claim; the server keeps it too, from
-- the delivery's fencing token, whose tick is the claim's server ms
-- (lua/includes/record.lua, deliveryToken): an extension past the limit is
-- refused (ETIMELIMIT), and a lease that runs out past it fails its
-- attempt with "timed out".
-- The limits of jobs `ids` (ms, false for none), read with one HMGET, the
-- queue's default filling in (`default`: ms, or nil: read it here).
function Life.timeLimits(ids, default)
  if default == nil then default = tonumber(rcall('HGET', K.config, 'timeout') or '') or false end
  local own = callSliced('HMGET', P .. 'tmo', ids)
  for i = 1, #ids do own[i] = own[i] and tonumber(own[i]) or default end
  return own
end
-- Has the delivery of fencing token `token` run for its limit `ms` by `now`?
function Life.overLimit(token, ms, now)
  return ms and now - (math.floor(token / TOKEN_SPREAD) + TOKEN_EPOCH_MS) >= ms
end
