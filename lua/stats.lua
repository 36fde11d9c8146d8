#!lua flags=no-writes
--[[ stats: queue figures (read-only).
-- KEYS: seq ring gweight glimit paused leases delayed dead lanes stats config
-- ARGV[1] key prefix "emq:{q}:"
-- Returns {OK, STATS_FIELDS values: lanes, ring, pending, leased, delayed,
-- dead, paused, enqueued, claimed, acked, failed, dead total, default
-- weight, default limit (0 = none), default max attempts, server ms}.
]]
--@include counts

local bad = layoutError()
if bad then return bad end
local c = rcall('HMGET', K.stats, 'enqueued', 'acked', 'failed', 'dead', 'released')
local function n(x) return tonumber(x or '0') end
local leased = rcall('ZCARD', K.leases)
-- Every delivery ends once, as an ack, a fail or an expired lease (both
-- counted in failed), a release, or is still leased: claims need no counter.
local claimed = n(c[2]) + n(c[3]) + n(c[5]) + leased
return { OK, rcall('ZCARD', K.lanes), rcall('LLEN', K.ring), pendingCount(), leased,
  rcall('ZCARD', K.delayed), rcall('ZCARD', K.dead), rcall('SCARD', K.paused),
  n(c[1]), claimed, n(c[2]), n(c[3]), n(c[4]),
  tonumber(rcall('HGET', K.gweight, '') or '1'), tonumber(rcall('HGET', K.glimit, '') or '0'),
  tonumber(rcall('HGET', K.config, 'maxatt') or '') or DEFAULT_MAX_ATTEMPTS, S(serverNowMs()) }
