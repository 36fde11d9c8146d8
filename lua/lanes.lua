#!lua flags=no-writes
--[[ lanes: figures of one lane, or of a page of lanes in name order (read-only).
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake jobs grate gbucket throttled gcap gvt gdebt
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] "one" | "page"
-- one:  ARGV[3] group
-- page: ARGV[3] start after this group ("" = from the first)  ARGV[4] count
-- Returns {OK, n, n `lane` rows of LANE_FIELDS values (lua/replies.txt)}:
-- limit, rate (jobs period burst) and cap 0 = none; tokens "-1" without a
-- rate; next token at 0 = has one; known = listed in the directory;
-- tenant: the tenant of a lane `T/L`, or of the tenant row `T/` itself
-- (is_tenant 1), "" for none (docs/keys.md, "Tenants"); wait and share figures "-1" while
-- the queue's wait figures are off or the window has none
-- (lua/includes/waits.lua); cost_v "" when the row has no charge (cost mode
-- off, or not yet charged), sits_out 1 while it waits in gdebt.
]]
--@include lane
--@include record
--@include waits

local names
if ARGV[2] == 'one' then
  if not ARGV[3] or #ARGV[3] == 0 then return { EINVAL, 'lane: bad group' } end
  names = { ARGV[3] }
elseif ARGV[2] == 'page' then
  local count = argInt(ARGV[4], 1, BATCH_MAX)
  if not ARGV[3] or not count then return { EINVAL, 'lanes: bad cursor or count' } end
  local from = '-'
  if #ARGV[3] > 0 then from = '(' .. ARGV[3] end
  names = rcall('ZRANGEBYLEX', K.lanes, from, '+', 'LIMIT', 0, count)
else
  return { EINVAL, 'lanes: bad mode' }
end
local Q, bad = readQueue()
if bad then return bad end
local out = { OK, #names }
local function fig(x, fmt) return x and string.format(fmt, x) or '-1' end
for _, g in ipairs(names) do
  local pk = pendingKey(g)
  local lw = rcall('HGET', K.gweight, g)
  local ll = rcall('HGET', K.glimit, g)
  local head = rcall('ZRANGE', pk, 0, 0)
  local oldest = '0'
  if head[1] then
    local rec = rcall('HGET', K.jobs, head[1])
    if rec then oldest = select(3, unpackRecord(rec)) end
  end
  local depth = rcall('ZCARD', pk)
  local active = tonumber(rcall('HGET', K.gactive, g) or '0')
  -- glive counts pending + leased + delayed jobs: the rest are delayed.
  local delayed = math.max(0, tonumber(rcall('HGET', K.glive, g) or '0') - depth - active)
  -- A tenant's row (`T/`) has no pending set: its depth counts the waiting
  -- jobs of its lanes (pending and delayed), from its sums.
  if isTenant(g) then depth, delayed = delayed, 0 end
  local rate, lr = laneRate(g), rcall('HGET', K.grate, g)
  local _, tok, due = rateState(rate, rcall('HGET', K.gbucket, g), serverNowMs())
  local cv = rcall('HMGET', K.gcap, g, '')
  local o = #out
  out[o + LANE_GROUP] = g
  out[o + LANE_DEPTH] = depth
  out[o + LANE_ACTIVE] = active
  out[o + LANE_LIMIT] = laneLimit(g) or 0
  out[o + LANE_WEIGHT] = laneWeight(g)
  out[o + LANE_LIMIT_IS_DEFAULT] = ll and 0 or 1
  out[o + LANE_WEIGHT_IS_DEFAULT] = lw and 0 or 1
  out[o + LANE_PAUSED] = rcall('SISMEMBER', K.paused, g)
  out[o + LANE_SERVICEABLE] = serviceable(g) and 1 or 0
  out[o + LANE_SERVED] = tonumber(rcall('HGET', K.gserved, g) or '0')
  out[o + LANE_OLDEST_ENQUEUED_AT] = oldest
  out[o + LANE_KNOWN] = rcall('ZSCORE', K.lanes, g) and 1 or 0
  out[o + LANE_DELAYED] = delayed
  out[o + LANE_RATE_JOBS] = rate and rate[1] or 0
  out[o + LANE_RATE_PERIOD_MS] = rate and rate[2] or 0
  out[o + LANE_RATE_BURST] = rate and rate[3] or 0
  out[o + LANE_RATE_IS_DEFAULT] = lr and 0 or 1
  out[o + LANE_TOKENS] = rate and string.format('%.3f', tok) or '-1'
  out[o + LANE_NEXT_TOKEN_AT] = due and S(due) or '0'
  out[o + LANE_CAP] = tonumber(cv[1] or cv[2] or '0')
  out[o + LANE_CAP_IS_DEFAULT] = cv[1] and 0 or 1
  local t, ownRow = laneTenant(g)
  if ownRow then t = g end
  out[o + LANE_TENANT] = t and string.sub(t, 1, -2) or ''
  out[o + LANE_IS_TENANT] = ownRow and 1 or 0
  local samples, p50, p99, claims, share, fair = 0, nil, nil, 0, nil, nil
  if Q.waits then samples, p50, p99, claims, share, fair = waitFigures(Q, g, serverNowMs(), Q.cost) end
  out[o + LANE_WAIT_SAMPLES] = samples
  out[o + LANE_WAIT_P50_MS] = fig(p50, '%.3f')
  out[o + LANE_WAIT_P99_MS] = fig(p99, '%.3f')
  out[o + LANE_WINDOW_CLAIMS] = claims
  out[o + LANE_SHARE] = fig(share, '%.6f')
  out[o + LANE_FAIR_SHARE] = fig(fair, '%.6f')
  out[o + LANE_COST_V] = rcall('HGET', K.gvt, g) or ''
  out[o + LANE_SITS_OUT] = rcall('ZSCORE', K.gdebt, g) and 1 or 0
  -- Its burst ceiling (lua/burst.lua), and whether it waits in the burst ring.
  out[o + LANE_BURST] = tonumber(rcall('HGET', Life.key('gburst'), g) or '0')
  out[o + LANE_BURSTING] = laneState(g) == 'burst' and 1 or 0
end
return out
