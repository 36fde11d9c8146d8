--@include okey
--@include many
-- Wait figures (docs/architecture.md, "Wait figures"), opt-in per queue:
-- WAITS, the window W in seconds (config field `waits`; nil = off, and then
-- nothing here runs), is read by layoutError. One hash, gwait (docs/keys.md):
-- entry -> "e n0 n1 x0 x1 w0 w1 k0 k1|h0|h1", slot 0 the window numbered e
-- (server ms / (W * 1000), floored), slot 1 the window before it:
--   n claims (every delivery), x cost charged (cost mode), w the weight
--   the entry counted with (0 = not served in that window), k for a
--   tenant entry the number of its lanes served; h the waits from enqueue
--   to first claim, sparse log buckets "b:c,b:c" (waitBucket).
-- The entries: each lane served, each tenant `T/` with a lane served (its
-- lanes' figures added up), and '' (never a lane): the queue, its w the sum
-- of the outer entries' w (plain lanes and tenants), its k0 the cursor of
-- the sweep that drops entries whose both windows ended (waitSweep).
-- Bucket 0 holds waits under 1 ms; bucket b >= 1 holds [2^((b-1)/2),
-- 2^(b/2)) ms: sqrt(2) steps, the last one open (from 2^25 ms, ~9.3 h).
local WAIT_BUCKETS = 52
-- Entries the sweep looks at per step (one HSCAN step).
local WAIT_SWEEP = 16
local function waitBucket(ms)
  if ms < 1 then return 0 end
  local m, e = math.frexp(ms)  -- ms = m * 2^e, 0.5 <= m < 1
  local b = e + e - 1
  if m >= 0.70710678118654752 then b = b + 1 end
  if b >= WAIT_BUCKETS then return WAIT_BUCKETS - 1 end
  return b
end
-- The tenant entry `T/` of lane `T/L` (TENANTS.md), nil for a plain lane or
-- a tenant entry itself.
local function laneTenant(g) return string.match(g, '^([^/]+/).') end
-- An entry as a table, rolled to window `e` (a window that ended longer ago
-- than the one before `e` counts nothing; the queue's sweep cursor stays).
local function waitEntry(v, e, queue)
  local w = { e = e, 0, 0, 0, 0, 0, 0, 0, 0, h0 = '', h1 = '' }
  if not v then return w end
  local se, n0, n1, x0, x1, w0, w1, k0, k1, h0, h1 =
    string.match(v, '^(%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+)|([^|]*)|(.*)$')
  if not se then return w end
  se = se + 0
  if queue then w[7] = k0 + 0 end
  if se == e then
    w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8] = n0 + 0, n1 + 0, x0 + 0, x1 + 0, w0 + 0, w1 + 0, k0 + 0, k1 + 0
    w.h0, w.h1 = h0, h1
  elseif se == e - 1 then
    w[2], w[4], w[6], w[8], w.h1 = n0 + 0, x0 + 0, w0 + 0, k0 + 0, h0
  end
  return w
end
local function packWait(w)
  return string.format('%d %d %d %d %d %d %d %d %d|', w.e, w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]) ..
    w.h0 .. '|' .. w.h1
end
-- Adds counts (bucket -> count) to a sparse histogram string.
local function addBuckets(h, add)
  for b, c in string.gmatch(h, '(%d+):(%d+)') do
    b = b + 0
    add[b] = (add[b] or 0) + c
  end
  local parts = {}
  for b = 0, WAIT_BUCKETS - 1 do
    local c = add[b]
    if c then parts[#parts + 1] = b .. ':' .. c end
  end
  return table.concat(parts, ',')
end
-- One step of the sweep: entries whose both windows ended leave gwait, so
-- it holds about the entries served in the last two windows.
local function waitSweep(q, e)
  local r = rcall('HSCAN', okey('gwait'), S(q[7]), 'COUNT', WAIT_SWEEP)
  q[7] = r[1] + 0
  local old = {}
  for i = 1, #r[2], 2 do
    local f, se = r[2][i], string.match(r[2][i + 1], '^(%d+)')
    if f ~= '' and (not se or se + 0 < e - 1) then old[#old + 1] = f end
  end
  if #old > 0 then callSliced('HDEL', okey('gwait'), old) end
end
-- The window of server time `now`.
local function waitWindow(now) return math.floor(now / (WAITS * 1000)) end
-- Reads the entries `names` (plus their tenants and '') rolled to window e:
-- name -> entry, and the names read.
local function readWaits(names, e)
  local q, seen = {}, {}
  for i = 1, #names do
    local g = names[i]
    if not seen[g] then seen[g] = true; q[#q + 1] = g end
    local t = laneTenant(g)
    if t and not seen[t] then seen[t] = true; q[#q + 1] = t end
  end
  q[#q + 1] = ''
  local vals = callSliced('HMGET', okey('gwait'), q)
  local m = {}
  for i = 1, #q do m[q[i]] = waitEntry(vals[i] or nil, e, q[i] == '') end
  return m, q
end
local function writeWaits(m, q)
  local set = {}
  for i = 1, #q do set[#set + 1] = q[i]; set[#set + 1] = packWait(m[q[i]]) end
  callSliced('HSET', okey('gwait'), set)
end
-- A claim's figures, one HMGET and one HSET of gwait for all the lanes it
-- served (lua/includes/turns.lua): lanes[i] got servedBy[lanes[i]] jobs;
-- first[] the indexes of the jobs on their first delivery (laneOf[i] their
-- lane, recs[i] their record, whose first field is the enqueue ms).
-- `weighted` (wclaim) or cost mode: an entry counts with its weight, else
-- 1 (a plain claim turn serves one job whatever the weight).
local function recordWaits(lanes, servedBy, first, laneOf, recs, weighted, now)
  local e = waitWindow(now)
  local m, q = readWaits(lanes, e)
  local tot = m['']
  local fresh = {}  -- outer entries served first in this window
  for i = 1, #lanes do
    local g = lanes[i]
    local c = servedBy[g]
    if c > 0 then
      local w, t = m[g], laneTenant(g)
      w[1] = w[1] + c
      tot[1] = tot[1] + c
      if t then
        local tw = m[t]
        tw[1] = tw[1] + c
        if w[5] == 0 then w[5] = 1; tw[7] = tw[7] + 1 end
        if tw[5] == 0 then tw[5] = -1; fresh[#fresh + 1] = t end
      elseif w[5] == 0 then
        w[5] = -1; fresh[#fresh + 1] = g
      end
    end
  end
  if #fresh > 0 then
    -- The weights, once per entry and window; and a step of the sweep.
    local wt = {}
    if weighted or COST_Q then
      local names = { '' }
      for i = 1, #fresh do names[i + 1] = fresh[i] end
      wt = readFields(K.gweight, names)
    end
    local dw = tonumber(wt[''] or '') or 1
    for i = 1, #fresh do
      local g = fresh[i]
      local v = tonumber(wt[g] or '') or (string.sub(g, -1) == '/' and 1 or dw)
      m[g][5] = v
      tot[5] = tot[5] + v
    end
    waitSweep(tot, e)
  end
  if #first > 0 then
    local add = {}
    for j = 1, #first do
      local i = first[j]
      local g = laneOf[i]
      local b = waitBucket(now - string.match(recs[i], '^%d+'))
      local a = add[g]
      if not a then a = {}; add[g] = a end
      a[b] = (a[b] or 0) + 1
      local t = laneTenant(g)
      if t then
        a = add[t]
        if not a then a = {}; add[t] = a end
        a[b] = (a[b] or 0) + 1
      end
    end
    for g, a in pairs(add) do m[g].h0 = addBuckets(m[g].h0, a) end
  end
  writeWaits(m, q)
end
-- Cost mode: the charges of a take call (lanes[i] costs[i] units) go into
-- the window's x of each lane, its tenant and the queue.
local function recordCosts(lanes, costs, now)
  if #lanes == 0 then return end
  local m, q = readWaits(lanes, waitWindow(now))
  local tot = m['']
  for i = 1, #lanes do
    local g, c = lanes[i], costs[i]
    m[g][3] = m[g][3] + c
    tot[3] = tot[3] + c
    local t = laneTenant(g)
    if t then m[t][3] = m[t][3] + c end
  end
  writeWaits(m, q)
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
-- The figures of entry g over its two windows, from the entries read by
-- readWaits: first claims, wait p50 and p99 (ms), claims, served share and
-- fair share (by cost when `byCost`). A lane of a tenant has 1/k of its
-- tenant's fair share (k: the tenant's lanes served in the window: they
-- share its turns by count). The windows' shares are weighted by the
-- queue's claims (or cost) in each. Nil for a figure that has no samples.
local function waitFigures(m, g, byCost)
  local w, tot = m[g], m['']
  local counts, samples = {}, 0
  for _, h in ipairs({ w.h0, w.h1 }) do
    for b, c in string.gmatch(h, '(%d+):(%d+)') do
      b = b + 0
      counts[b] = (counts[b] or 0) + c
      samples = samples + c
    end
  end
  local p50, p99
  if samples > 0 then p50, p99 = waitQuantile(counts, samples, 0.5), waitQuantile(counts, samples, 0.99) end
  local o = byCost and 2 or 0  -- x instead of n
  local all = tot[1 + o] + tot[2 + o]
  local share, fair
  if all > 0 then
    share = (w[1 + o] + w[2 + o]) / all
    local t = laneTenant(g)
    fair = 0
    for k = 0, 1 do
      local S, f = tot[5 + k], 0
      if t then
        local tw = m[t]
        if S > 0 and tw[7 + k] > 0 and w[5 + k] > 0 then f = tw[5 + k] / S / tw[7 + k] end
      elseif S > 0 then
        f = w[5 + k] / S
      end
      fair = fair + f * tot[1 + o + k]
    end
    fair = fair / all
  end
  return samples, p50, p99, w[1] + w[2], share, fair
end
