#!lua flags=no-writes
--[[ stats: queue figures (read-only).
-- KEYS: seq ring gweight glimit paused leases delayed dead lanes stats config
-- ARGV[1] key prefix "emq:{q}:"
-- Returns {OK, then a `stats` row of STATS_FIELDS values (lua/replies.txt)};
-- default limit 0 = none; lanes counts lanes only, not the tenants' own
-- entries `T/` the directory also lists; tenants counts the tenants listed.
]]
--@include counts

-- The directory's tenant entries and tenants (docs/keys.md, "Tenants"). A
-- tenant T's names are the range [T/, T0) ('0' follows '/'), its own entry
-- first, so the walk jumps over each tenant in one step and reads plain
-- lanes a page at a time: at most tenants + plain lanes / 100 + 1 calls, and
-- none for a queue that never had a tenant (its `tenants` flag is unset).
local function tenantCounts()
  if not TENANTS then return 0, 0 end
  local entries, tenants, from = 0, 0, '-'
  while true do
    local names = rcall('ZRANGEBYLEX', K.lanes, from, '+', 'LIMIT', 0, 100)
    local jump
    for i = 1, #names do
      local g = names[i]
      local te = isTenant(g) and g or tenantOf(g)
      if te then
        tenants = tenants + 1
        if g == te then entries = entries + 1 end
        jump = '[' .. string.sub(te, 1, -2) .. '0'
        break
      end
    end
    if jump then from = jump
    elseif #names < 100 then break
    else from = '(' .. names[#names] end
  end
  return entries, tenants
end

local bad = layoutError()
if bad then return bad end
local c = rcall('HMGET', K.stats, 'enqueued', 'acked', 'failed', 'dead', 'released')
local function n(x) return tonumber(x or '0') end
local leased, delayed = jobsIn(K.leases), jobsIn(K.delayed)
-- Every delivery ends once, as an ack, a fail or an expired lease (both
-- counted in failed), a release, or is still leased: claims need no counter.
local claimed = n(c[2]) + n(c[3]) + n(c[5]) + leased
local out = { OK }  -- then a `stats` row (lua/replies.txt: STATS_FIELDS values)
local entries, tenants = tenantCounts()
out[1 + STATS_LANES] = rcall('ZCARD', K.lanes) - entries
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
out[1 + STATS_TENANTS] = tenants
return out
