--@include base
-- Batched reads and writes of per-lane and per-job hash fields: one HMGET
-- and one HSET per hash for a whole batch, whatever its size.
-- Values of `names` in hash `key` as a table name -> value (nil or false
-- if absent). A settings hash is often absent (no lane has the setting, no
-- default): then one EXISTS answers for every name.
local function readFields(key, names)
  local m = {}
  if #names > 2 and rcall('EXISTS', key) == 0 then return m end
  local vals = callSliced('HMGET', key, names)
  for i = 1, #names do m[names[i]] = vals[i] or false end
  return m
end
-- Effective limit (or false) and weight of each lane in `names`.
local function laneSettings(Q, names, weighted)
  local q = {}
  for i, n in ipairs(names) do q[i] = n end
  q[#q + 1] = ''
  local lim, wt = readFields(K.glimit, q), nil
  local dl = tonumber(lim[''] or '')
  -- A tenant entry (`T/`) has no default: the queue defaults are for lanes.
  for _, n in ipairs(names) do
    local v = lim[n]
    lim[n] = v and tonumber(v) or (not (Q.tenants and isTenant(n)) and dl) or false
  end
  if weighted then
    wt = readFields(K.gweight, q)
    local dw = tonumber(wt[''] or '') or 1
    for _, n in ipairs(names) do local v = wt[n]; wt[n] = v and tonumber(v) or (Q.tenants and isTenant(n) and 1 or dw) end
  end
  return lim, wt
end
-- The counts of `names` in hash `key`, in their order (0 when absent): one
-- HMGET. A count is digits (`+`: base.lua).
local function readCounts(key, names)
  local cur = callSliced('HMGET', key, names)
  for i = 1, #names do cur[i] = cur[i] and cur[i] + 0 or 0 end
  return cur
end
-- Writes cur[i] + delta[names[i]] to each field of `names` in hash `key`, a
-- field going at exactly 0: one HSET (and one HDEL). Returns the new values
-- (name -> number).
local function writeCounts(key, names, cur, delta)
  local now, set, del = {}, {}, {}
  for i = 1, #names do
    local n = names[i]
    local v = cur[i] + delta[n]
    now[n] = v
    -- v goes as a number: the server prints an integer-valued argument with
    -- its integer digits, faster than string.format here.
    if v == 0 then del[#del + 1] = n else set[#set + 1] = n; set[#set + 1] = v end
  end
  if #set > 0 then callSliced('HSET', key, set) end
  if #del > 0 then callSliced('HDEL', key, del) end
  return now
end
-- Adds delta[name] to each field of `names` in hash `key` and returns the
-- new values (name -> number); a field goes at exactly 0. One HINCRBY per
-- field for one or two fields, else readCounts and writeCounts.
local function addCounts(key, names, delta)
  if #names > 2 then return writeCounts(key, names, readCounts(key, names), delta) end
  local now = {}
  for _, n in ipairs(names) do
    local v = rcall('HINCRBY', key, n, delta[n])
    if v == 0 then rcall('HDEL', key, n) end
    now[n] = v
  end
  return now
end
