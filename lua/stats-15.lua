#!lua flags=no-writes
--[[ stats: queue figures (read-only).
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
-- Returns {OK, lanes, ring, pending, leased, delayed, dead, paused, enqueued,
-- claimed, acked, failed, dead total, default weight, default limit (0 =
-- none), default max attempts, server ms}.
]]
--@include keys
--@include status
--@include now
--@include pendingCount
--@include defaultMaxAttempts

local c = rcall('HMGET', K.stats, 'enqueued', 'acked', 'failed', 'dead')
local function n(x) return tonumber(x or '0') end
local leased = rcall('ZCARD', K.leases)
-- Every delivery ends once, as an ack, a fail or an expired lease (both
-- counted in failed), or is still leased: so claims need no counter.
local claimed = n(c[2]) + n(c[3]) + leased
return { OK, rcall('ZCARD', K.lanes), rcall('LLEN', K.ring), pendingCount(), leased,
  rcall('ZCARD', K.delayed), rcall('ZCARD', K.dead), rcall('SCARD', K.paused),
  n(c[1]), claimed, n(c[2]), n(c[3]), n(c[4]),
  tonumber(rcall('HGET', K.gweight, '') or '1'), tonumber(rcall('HGET', K.glimit, '') or '0'),
  defaultMaxAttempts(), S(serverNowMs()) }
