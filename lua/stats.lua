#!lua flags=no-writes
--[[ stats: queue figures (read-only).
-- KEYS: seq ring gweight glimit paused leases delayed dead lanes stats config
-- ARGV (lua/args.txt, `stats`), by mode: "all": the figures; "count", then
--   a cursor: one more step of the tenant count the figures began
-- Returns {OK, then a `stats` row of STATS_FIELDS values (lua/replies.txt)};
-- default limit 0 = none; lanes counts lanes only, not the tenants' own
-- entries `T/` the directory also lists; tenants counts the tenants listed;
-- tenant_cursor "" when both are whole, else where the caller goes on with
-- "count" steps, each {OK, tenant entries, tenants, cursor} to take from
-- lanes and add to tenants.
]]
--@include args
--@include counts
--@include life

-- The directory's tenant entries and tenants (docs/keys.md, "Tenants"). A
-- tenant T's names are the range [T/, T0) ('0' follows '/'), its own entry
-- first. The walk reads the directory 1,000 names a page, and when a page
-- ends inside a tenant it jumps past the rest of that tenant's lanes; a
-- call reads at most STATS_STEP pages (3-5 ms of server time on the
-- project's 2-core machine), so a queue of many names is counted in
-- bounded steps.
-- None for a queue that never had a tenant (its `tenants` flag is unset).
local STATS_PAGE, STATS_STEP = 1000, 5
local function tenantCounts(from)
  local entries, tenants, last = 0, 0, nil
  for _ = 1, STATS_STEP do
    local names = rcall('ZRANGEBYLEX', K.lanes, from, '+', 'LIMIT', 0, STATS_PAGE)
    local te
    for i = 1, #names do
      local g = names[i]
      te = isTenant(g) and g or tenantOf(g)
      if te and te ~= last then tenants = tenants + 1; last = te end
      if g == te then entries = entries + 1 end
    end
    if #names < STATS_PAGE then return entries, tenants, '' end
    from = te and ('[' .. string.sub(te, 1, -2) .. '0') or ('(' .. names[#names])
  end
  return entries, tenants, from
end

local A, bad = readArgs()
if not A then return bad end
if A.mode == 'count' then
  local from = A.cursor
  if not string.find(from, '^[%[%(]') then return { EINVAL, 'stats: bad tenant count cursor' } end
  bad = layoutError()
  if bad then return bad end
  return { OK, tenantCounts(from) }
end

local Q
Q, bad = readQueue()
if bad then return bad end
local c = rcall('HMGET', K.stats, 'enqueued', 'acked', 'failed', 'dead', 'released', 'canceled', 'expired')
local function n(x) return tonumber(x or '0') end
local leased, delayed = jobsIn(K.leases), jobsIn(K.delayed)
-- Every delivery ends once, as an ack, a fail or an expired lease (both
-- counted in failed), a release, or is still leased: claims need no counter.
local claimed = n(c[2]) + n(c[3]) + n(c[5]) + leased
local out = { OK }  -- then a `stats` row (lua/replies.txt: STATS_FIELDS values)
local entries, tenants, cursor = 0, 0, ''
if Q.tenants then entries, tenants, cursor = tenantCounts('-') end
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
out[1 + STATS_TENANT_CURSOR] = cursor
out[1 + STATS_CANCELED] = n(c[6])
out[1 + STATS_EXPIRED] = n(c[7])
out[1 + STATS_BURSTING] = rcall('LLEN', Life.key('bring'))
return out
