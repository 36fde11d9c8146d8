-- Refuses a call before its first write when a key it may touch holds the
-- wrong type. Lua scripts do not roll back, so a WRONGTYPE part-way through
-- would leave a half write (tests/c/server/half_write_test.cpp lists where
-- that happens today). Checks the queue's fixed keys and `extra` (may be
-- nil), a table key -> type for per-lane or per-job keys (a lane's pending
-- zset, a job hash). An absent key always fits. Costs one TYPE per key.
-- Returns nil when every key fits, else a reply to return as it is:
-- {-20 (ECHOMQ_ESERVER), message naming the key}.
local function typeGuard(extra)
  local want = {
    [K.seq] = 'string', [K.ring] = 'list', [K.gweight] = 'hash', [K.glimit] = 'hash',
    [K.gactive] = 'hash', [K.paused] = 'set', [K.leases] = 'zset', [K.delayed] = 'zset',
    [K.dead] = 'zset', [K.lanes] = 'zset', [K.glive] = 'hash', [K.gserved] = 'hash',
    [K.stats] = 'hash', [K.config] = 'hash', [K.wake] = 'list',
  }
  for key, t in pairs(extra or {}) do want[key] = t end
  for key, t in pairs(want) do
    local got = rcall('TYPE', key)['ok']
    if got ~= 'none' and got ~= t then
      return { -20, 'WRONGTYPE ' .. key .. ' holds a ' .. got .. ', not a ' .. t .. '; nothing was changed' }
    end
  end
  return nil
end
