#!lua flags=no-writes
--[[ stats: queue figures (read-only).
-- KEYS: seq ring gweight glimit paused leases delayed dead lanes stats config
-- ARGV[1] key prefix "emq:{q}:"
-- Returns {OK, then a `stats` row of STATS_FIELDS values (lua/replies.txt)};
-- default limit 0 = none.
]]
--@include counts

local bad = layoutError()
if bad then return bad end
local c = rcall('HMGET', K.stats, 'enqueued', 'acked', 'failed', 'dead', 'released')
local function n(x) return tonumber(x or '0') end
local leased, delayed = jobsIn(K.leases), jobsIn(K.delayed)
-- Every delivery ends once, as an ack, a fail or an expired lease (both
-- counted in failed), a release, or is still leased: claims need no counter.
local claimed = n(c[2]) + n(c[3]) + n(c[5]) + leased
local out = { OK }  -- then a `stats` row (lua/replies.txt: STATS_FIELDS values)
out[1 + STATS_LANES] = rcall('ZCARD', K.lanes)
out[1 + STATS_RING] = rcall('LLEN', K.ring)
out[1 + STATS_PENDING] = pendingCount(leased, delayed)
out[1 + STATS_LEASED] = leased
out[1 + STATS_DELAYED] = delayed
out[1 + STATS_DEAD] = rcall('ZCARD', K.dead)
out[1 + STATS_PAUSED] = rcall('SCARD', K.paused)
out[1 + STATS_ENQUEUED] = n(c[1])
out[1 + STATS_CLAIMED] = claimed
out[1 + STATS_ACKED] = n(c[2])
out[1 + STATS_FAILED] = n(c[3])
out[1 + STATS_DEAD_TOTAL] = n(c[4])
out[1 + STATS_DEFAULT_WEIGHT] = tonumber(rcall('HGET', K.gweight, '') or '1')
out[1 + STATS_DEFAULT_LIMIT] = tonumber(rcall('HGET', K.glimit, '') or '0')
out[1 + STATS_DEFAULT_MAX_ATTEMPTS] = tonumber(rcall('HGET', K.config, 'maxatt') or '') or DEFAULT_MAX_ATTEMPTS
out[1 + STATS_SERVER_TIME] = S(serverNowMs())
return out
