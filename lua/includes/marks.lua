--@include base
-- Writes the marks (lua/includes/base.lua) that keep the per-lane counter
-- hashes and att hash tables and the leases and delayed sets skiplists. One
-- ZADD NX per enqueue: the leases mark stands for all six (the documented
-- ACLs allow these commands). A key that lost its mark alone only loses speed,
-- never a count; the next enqueue that finds the leases mark gone writes
-- them all again.
local function markKeys()
  if rcall('ZADD', K.leases, 'NX', '+inf', ZSET_MARK) == 0 then return end
  rcall('ZADD', K.delayed, 'NX', '+inf', ZSET_MARK)
  for _, key in ipairs({ K.gactive, K.glive, K.gserved, K.att }) do rcall('HSET', key, COUNTERS_MARK, COUNTERS_PAD) end
end
