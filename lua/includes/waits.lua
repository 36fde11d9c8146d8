--@include okey
--@include many
-- Wait figures (docs/architecture.md, "Wait figures"), opt-in per queue:
-- Q.waits, the window W in seconds (config field `waits`; nil = off, and then
-- nothing here runs), is read by readQueue. One hash, gwait (docs/keys.md),
-- of plain counts: windows are numbered e = server ms / (W * 1000), floored,
-- and a figure covers windows e and e - 1. For an entry g (each lane
-- served; each tenant `T/` with a lane served, its lanes added up; '',
-- never a lane, the queue), the fields of window e ("\t" is never in a
-- name):
--   g\te        claims (every delivery)
--   g\te\tw     the weight it counted with (the queue: the sum of the
--               outer entries', plain lanes and tenants)
--   g\te\tk     a tenant: its lanes served
--   g\te\tx     cost charged (cost mode)
--   g\te\t<b>   first deliveries whose wait from enqueue fell in bucket b
-- Bucket 0 holds waits under 1 ms; bucket b >= 1 holds [2^((b-1)/2),
-- 2^(b/2)) ms: sqrt(2) steps, the last one open (from 2^25 ms, ~9.3 h).
-- Plain counts keep the hot path (recordWaits) to one HMGET and one HSET
-- with no parsing: per lane served it reads and writes its claims and the
-- buckets its jobs fell in (bench/README.md, "Wait figures"). A field of a
-- window before e - 1 counts nothing and leaves with the sweep.
local WAIT_BUCKETS = 52
-- Fields the sweep looks at per step (one HSCAN step): more than one lane
-- can open in a window (4 + 52), so the sweep keeps up with them.
local WAIT_SWEEP = 64
-- The sweep's cursor: a field of its own ("\t" alone: never an entry's).
local WAIT_CURSOR = '\t'
local function waitBucket(ms)
  if ms < 1 then return 0 end
  local m, e = math.frexp(ms)  -- ms = m * 2^e, 0.5 <= m < 1
  local b = e + e - 1
  if m >= 0.70710678118654752 then b = b + 1 end
  if b >= WAIT_BUCKETS then return WAIT_BUCKETS - 1 end
  return b
end
-- The tenant entry `T/` of lane `T/L` (docs/keys.md, "Tenants"), nil for a
-- plain lane or a tenant entry itself; and whether g is a tenant entry `T/`
-- (lua/lanes.lua reports it as the row's tenant fields).
local function laneTenant(g)
  if isTenant(g) then return nil, true end
  return tenantOf(g), false  -- the naming: lua/includes/base.lua
end
-- The window of server time `now`.
local function waitWindow(Q, now) return math.floor(now / (Q.waits * 1000)) end
-- One step of the sweep: fields of windows before e - 1 leave gwait, so it
-- holds about the fields of the last two windows.
local function waitSweep(e)
  local key = okey('gwait')
  local r = rcall('HSCAN', key, rcall('HGET', key, WAIT_CURSOR) or '0', 'COUNT', WAIT_SWEEP)
  local old = {}
  for i = 1, #r[2], 2 do
    local we = string.match(r[2][i], '\t(%d+)')
    if we and we + 0 < e - 1 then old[#old + 1] = r[2][i] end
  end
  if #old > 0 then callSliced('HDEL', key, old) end
  rcall('HSET', key, WAIT_CURSOR, r[1])
end
-- Adds `add` (field -> count, the fields listed in `fields`) to gwait with
-- one HMGET and one HSET; returns the counts it had (field -> number or nil).
local function addWaitCounts(fields, add)
  local cur = callSliced('HMGET', okey('gwait'), fields)
  local had, set = {}, {}
  for i = 1, #fields do
    local f, v = fields[i], cur[i]
    v = v and tonumber(v) or nil  -- (a field written by hand that holds no number starts again)
    had[f] = v
    set[#set + 1] = f
    set[#set + 1] = (v or 0) + add[f]
  end
  callSliced('HSET', okey('gwait'), set)
  return had
end
-- A claim's figures (lua/includes/lease.lua): lanes[i] got
-- servedBy[lanes[i]] jobs; first[] the indexes of the jobs on their first
-- delivery (laneOf[i] their lane, recs[i] their record, whose first field
-- is the enqueue ms). An entry served first in the window counts with its
-- weight when the call is `weighted` (wclaim) or in cost mode, else 1 (a
-- plain claim turn serves one job whatever the weight).
local function recordWaits(Q, lanes, servedBy, first, laneOf, recs, weighted, now)
  local e = waitWindow(Q, now)
  local sfx = '\t' .. e
  local fields, add, ten, lf = {}, {}, {}, {}
  local function count(f, c)
    local a = add[f]
    if not a then fields[#fields + 1] = f; a = 0 end
    add[f] = a + c
  end
  local total = 0
  for i = 1, #lanes do
    local g = lanes[i]
    local c = servedBy[g]
    local t, own = laneTenant(g)
    if c > 0 and not own then  -- a tenant's own entry adds up its lanes here
      t = t or false
      local f = g .. sfx
      ten[g], lf[g] = t, f
      count(f, c)
      if t then count(t .. sfx, c) end
      total = total + c
    end
  end
  if total == 0 then return end
  count(sfx, total)
  for j = 1, #first do
    local i = first[j]
    local g = laneOf[i]
    local b = '\t' .. waitBucket(now - string.match(recs[i], '^%d+'))
    count(lf[g] .. b, 1)
    local t = ten[g]
    if t then count(t .. sfx .. b, 1) end
  end
  local had = addWaitCounts(fields, add)
  -- Entries served first in this window: their weights (and a tenant's
  -- lanes), once per entry and window, and a step of the sweep.
  local fresh, lanesNew, f2, a2 = {}, {}, {}, {}
  local function count2(f, c)
    if not a2[f] then f2[#f2 + 1] = f; a2[f] = 0 end
    a2[f] = a2[f] + c
  end
  for i = 1, #lanes do
    local g = lanes[i]
    local t = ten[g]
    if t == false and not had[lf[g]] then
      fresh[#fresh + 1] = g
    elseif t then
      if not had[lf[g]] then count2(t .. sfx .. '\tk', 1) end
      if not had[t .. sfx] and not lanesNew[t] then lanesNew[t] = true; fresh[#fresh + 1] = t end
    end
  end
  if #fresh == 0 and #f2 == 0 then return end
  local wt = {}
  if #fresh > 0 and (weighted or Q.cost) then
    local names = { '' }
    for i = 1, #fresh do names[i + 1] = fresh[i] end
    wt = readFields(K.gweight, names)
  end
  local dw = tonumber(wt[''] or '') or 1
  for i = 1, #fresh do
    local g = fresh[i]
    local v = tonumber(wt[g] or '') or (string.sub(g, -1) == '/' and 1 or dw)
    count2(g .. sfx .. '\tw', v)
    count2(sfx .. '\tw', v)
  end
  addWaitCounts(f2, a2)
  if #fresh > 0 then waitSweep(e) end
end
-- Cost mode: the charges of a take call (lanes[i] costs[i] units) go into
-- the window's x of each lane, its tenant and the queue.
local function recordCosts(Q, lanes, costs, now)
  if #lanes == 0 then return end
  local sfx = '\t' .. waitWindow(Q, now) .. '\tx'
  local fields, add = {}, {}
  local function count(f, c)
    if not add[f] then fields[#fields + 1] = f; add[f] = 0 end
    add[f] = add[f] + c
  end
  for i = 1, #lanes do
    local g, c = lanes[i], costs[i]
    local t, own = laneTenant(g)
    if not own then
      count(g .. sfx, c)
      count(sfx, c)
      if t then count(t .. sfx, c) end
    end
  end
  addWaitCounts(fields, add)
end
-- The wait quantile q (0..1] of the counts (bucket -> count, `total` of
-- them), in ms: the upper edge of the bucket that holds it (the last, open
-- bucket: its lower edge).
local function waitQuantile(counts, total, q)
  local want, cum = math.ceil(q * total), 0
  for b = 0, WAIT_BUCKETS - 1 do
    cum = cum + (counts[b] or 0)
    if cum >= want then
      if b == WAIT_BUCKETS - 1 then return 2 ^ ((b - 1) / 2) end
      return 2 ^ (b / 2)
    end
  end
  return 2 ^ ((WAIT_BUCKETS - 2) / 2)
end
-- The figures of entry g at server time `now`, over windows e and e - 1
-- (one HMGET): first claims, wait p50 and p99 (ms), claims, served share
-- and fair share (by cost when `byCost`). A lane of a tenant has 1/k of
-- its tenant's fair share (k: the tenant's lanes served in the window: they
-- share its turns by count). The windows' shares are weighted by the
-- queue's claims (or cost) in each. Nil for a figure that has no samples.
local function waitFigures(Q, g, now, byCost)
  local e = waitWindow(Q, now)
  local t = laneTenant(g)
  local fields = {}
  for k = 0, 1 do
    local s = '\t' .. (e - k)
    for _, f in ipairs({ g .. s, g .. s .. '\tw', g .. s .. '\tx', s, s .. '\tw', s .. '\tx' }) do
      fields[#fields + 1] = f
    end
    if t then
      for _, f in ipairs({ t .. s .. '\tw', t .. s .. '\tk' }) do fields[#fields + 1] = f end
    end
    for b = 0, WAIT_BUCKETS - 1 do fields[#fields + 1] = g .. s .. '\t' .. b end
  end
  local vals = rcall('HMGET', okey('gwait'), unpack(fields))
  local v = {}
  for i = 1, #fields do v[fields[i]] = tonumber(vals[i] or '') or 0 end
  local counts, samples = {}, 0
  for k = 0, 1 do
    local s = '\t' .. (e - k)
    for b = 0, WAIT_BUCKETS - 1 do
      local c = v[g .. s .. '\t' .. b]
      counts[b] = (counts[b] or 0) + c
      samples = samples + c
    end
  end
  local p50, p99
  if samples > 0 then p50, p99 = waitQuantile(counts, samples, 0.5), waitQuantile(counts, samples, 0.99) end
  local x = byCost and '\tx' or ''
  local all, mine, claims, fair = 0, 0, 0, 0
  for k = 0, 1 do
    local s = '\t' .. (e - k)
    all = all + v[s .. x]
    mine = mine + v[g .. s .. x]
    claims = claims + v[g .. s]
  end
  if all == 0 then return samples, p50, p99, claims, nil, nil end
  for k = 0, 1 do
    local s = '\t' .. (e - k)
    local S, f = v[s .. '\tw'], 0
    if t then
      local tk = v[t .. s .. '\tk']
      if S > 0 and tk > 0 and v[g .. s] > 0 then f = v[t .. s .. '\tw'] / S / tk end
    elseif S > 0 then
      f = v[g .. s .. '\tw'] / S
    end
    fair = fair + f * v[s .. x]
  end
  return samples, p50, p99, claims, mine / all, fair / all
end
