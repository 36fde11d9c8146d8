#!lua flags=no-writes
--[[ lanes: figures of one lane, or of a page of lanes in name order (read-only).
-- KEYS: seq ring gweight glimit gactive paused lanes glive gserved config wake jobs grate gbucket throttled gcap
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] "one" | "page"
-- one:  ARGV[3] group
-- page: ARGV[3] start after this group ("" = from the first)  ARGV[4] count
-- Returns {OK, n, n x LANE_FIELDS values: group, depth, active, limit (0 =
-- none), weight, limit is default, weight is default, paused, serviceable,
-- served, oldest enqueued at, known (listed in the directory), delayed jobs,
-- rate jobs, rate period ms, rate burst (0 0 0 = none), rate is default,
-- tokens now ("-1" without a rate), next token due at ms (0 = has one),
-- cap (0 = none), cap is default}.
]]
--@include lane
--@include record

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
local bad = layoutError()
if bad then return bad end
local out = { OK, #names }
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
  local rate, lr = laneRate(g), rcall('HGET', K.grate, g)
  local _, tok, due = rateState(rate, rcall('HGET', K.gbucket, g), serverNowMs())
  local cv = rcall('HMGET', K.gcap, g, '')
  local row = { g, depth, active, laneLimit(g) or 0, laneWeight(g),
    ll and 0 or 1, lw and 0 or 1, rcall('SISMEMBER', K.paused, g), serviceable(g) and 1 or 0,
    tonumber(rcall('HGET', K.gserved, g) or '0'), oldest,
    rcall('ZSCORE', K.lanes, g) and 1 or 0, delayed,
    rate and rate[1] or 0, rate and rate[2] or 0, rate and rate[3] or 0, lr and 0 or 1,
    rate and string.format('%.3f', tok) or '-1', due and S(due) or '0',
    tonumber(cv[1] or cv[2] or '0'), cv[1] and 0 or 1 }
  for _, v in ipairs(row) do out[#out + 1] = v end
end
return out
