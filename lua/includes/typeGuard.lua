-- Refuses a call before its first write when a key it may touch holds the
-- wrong type. Lua scripts do not roll back, so a WRONGTYPE part-way through
-- would leave a half write (tests/c/server/half_write_test.cpp lists where
-- that happens). `want` maps each key the script will write (K.leases, a
-- lane's pending zset, ...) to its type: 'string', 'hash', 'list', 'set' or
-- 'zset'. An absent key always fits. Costs one TYPE per key.
-- Returns nil when every key fits, else a reply to return as it is:
-- {-20 (ECHOMQ_ESERVER), message naming the key}.
local function typeGuard(want)
  for key, t in pairs(want) do
    local got = rcall('TYPE', key)['ok']
    if got ~= 'none' and got ~= t then
      return { -20, 'WRONGTYPE ' .. key .. ' holds a ' .. got .. ', not a ' .. t ..
        '; nothing was changed' }
    end
  end
  return nil
end
