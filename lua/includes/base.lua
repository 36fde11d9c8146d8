-- Per-lane key, integers as strings, server time, argument parsing, and the
-- queue settings every script opens with. (rcall and rpcall, redis.call
-- and redis.pcall, P, K and the status and bound constants come from the
-- generated prelude: cmake/EmbedLua.cmake.)
local function pendingKey(g) return P .. 'g:' .. g .. ':pending' end
-- Tenants (docs/architecture.md, "Lanes inside tenants"). A lane named
-- `T/L` (T non-empty without '/', L non-empty) is a lane of tenant T; the
-- name `T/` is the tenant's own entry: in the outer ring, in the settings
-- and counter hashes (its aggregates) and in the lane directory. It is never
-- a lane. Any other name holds no tenant. A name is read from its first
-- byte, so a queue whose lanes hold no '/' pays one find per lane.
-- The tenant entry of lane g (`T/`), or nil.
local function tenantOf(g)
  local s = string.find(g, '/', 1, true)
  if s and s > 1 and s < #g then return string.sub(g, 1, s) end
  return nil
end
-- Is g a tenant entry (`T/`: its one '/' ends it)?
local function isTenant(g)
  return string.byte(g, -1) == 47 and #g > 1 and string.find(g, '/', 1, true) == #g
end
-- Tenant T's inner ring (te = `T/`): its lanes serviceable now, each once.
local function innerKey(te) return P .. 't:' .. string.sub(te, 1, -2) .. ':ring' end
-- Why g cannot hold jobs (nil when it can): a tenant's name, an empty
-- tenant part or a second '/' (the rule: cpp/validate.cpp, docs/keys.md).
local function laneNameProblem(g)
  local s = string.find(g, '/', 1, true)
  if not s then return nil end
  if s == 1 then return 'group name has an empty tenant part' end
  if string.find(g, '/', s + 1, true) then return "group name holds more than one '/'" end
  if s == #g then return "'" .. g .. "' names a tenant, not a lane (a tenant's lanes are '" .. g .. "<lane>')" end
  return nil
end
-- Loops. The per-lane and per-job paths of a claim and an ack loop with a
-- numeric for, not ipairs: each ipairs step is a library call, about twice
-- the cost of an index in Valkey's Lua (bench/README.md).
-- Marks (docs/keys.md). Valkey keeps a small hash or sorted set as a
-- listpack, where every lookup and insert scans the whole key. The keys a
-- claim or an ack reads and writes per lane or per job hold one entry
-- longer than the listpack limit (hash-max-listpack-value and
-- zset-max-listpack-value, 64 bytes by default), which keeps them a hash
-- table or a skiplist for good. Enqueue writes them when missing
-- (lua/includes/marks.lua); readers that walk or count these keys pass over
-- them. COUNTERS_MARK is a field of gactive, glive, gserved and att ("",
-- never a group or job id); ZSET_MARK a member of leases and delayed (never
-- a job id), scored +inf, so that no due-time query ever reaches it.
local COUNTERS_MARK = ''
local COUNTERS_PAD = 'keeps this hash a hash table: one lookup per lane, not a scan (docs/keys.md)'
local ZSET_MARK = '~ keeps this sorted set a skiplist: one lookup per job, not a scan (docs/keys.md)'
-- A SCAN pattern matching the literal `s`.
local function globEscape(s) return (string.gsub(s, '([%*%?%[%]\\])', '\\%1')) end
-- Integers go to Valkey as strings; %.0f keeps 13-digit milliseconds exact.
-- %d prints the same digits for an exact integer without the float
-- formatting (the per-job cost of a claim): below 2^53 every integer is exact.
local function S(n)
  if n % 1 == 0 and n > -9007199254740992 and n < 9007199254740992 then return string.format('%d', n) end
  return string.format('%.0f', n)
end
-- Per-call state: a top-level local declared without a value. As a Valkey
-- function (`--@function`) the script's helpers outlive a call, and the
-- generated wrapper sets every such local back to nil before each call
-- (cmake/EmbedLua.cmake).
local NOW_MS
local function serverNowMs()
  if not NOW_MS then
    local t = rcall('TIME')
    NOW_MS = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return NOW_MS  -- one instant per script call
end
-- A decimal integer argument in [lo, hi]; nil when it is not one.
-- On the hot paths a string already matched as digits becomes a number by
-- `s + 0`: Lua 5.1's tonumber parses a string twice (lua_isnumber, then
-- lua_tonumber), arithmetic once.
local function argInt(s, lo, hi)
  if type(s) ~= 'string' or not string.match(s, '^%-?%d+$') or #s > 16 then return nil end
  local n = s + 0
  if n < lo or n > hi then return nil end
  return n
end
-- Calls cmd(key, [flag,] items...) in slices: unpack() has a stack limit.
-- Returns the replies of the slices, concatenated when they are arrays.
local function callSliced(cmd, key, items, prefix)
  if #items <= 4000 then  -- one call, no copy
    if prefix then return rcall(cmd, key, prefix[1], unpack(items)) end
    return rcall(cmd, key, unpack(items))
  end
  local out = {}
  for i = 1, #items, 4000 do
    local args = { cmd, key }
    if prefix then for _, a in ipairs(prefix) do args[#args + 1] = a end end
    for j = i, math.min(i + 3999, #items) do args[#args + 1] = items[j] end
    local r = rcall(unpack(args))
    if type(r) == 'table' then for _, v in ipairs(r) do out[#out + 1] = v end end
  end
  return out
end
-- The queue's settings that choose a call's paths, read once per call by
-- readQueue (one HMGET, the first read of every script) into a table Q that
-- the script passes down to every helper that needs one; no helper keeps
-- them. A feature that is off costs its paths nothing beyond that read.
--   Q.outcomes  the `outcomes` flag: nil while no outcome feature
--               (retention, waiters, progress, events) is on
--               (lua/includes/outcomes.lua)
--   Q.cost      the cost quantum (field `cost`), nil when turns count jobs
--               (lua/includes/cost.lua)
--   Q.tenants   the `tenants` flag, set by the first enqueue to a lane of a
--               tenant and never cleared: until then no path reads a lane
--               name for a tenant
--   Q.waits     the window in seconds of the wait figures (field `waits`),
--               nil while they are off (lua/includes/waits.lua)
--   Q.cancels, Q.timeouts, Q.expiry, Q.qlimit, Q.burst  the lifecycle
--               features in use (field `life`, one letter each:
--               lua/includes/life.lua), each nil while unused
--   Q.sched     the next tick (server ms) of the earliest armed schedule
--               (field `sched`), nil while none is armed: a claim looks at
--               no schedule before then (lua/includes/fire.lua)
--   Q.flows     the `flows` flag, set by the first enqueue_flow and never
--               cleared: until then no settlement looks for a parent
--               (lua/includes/flowLinks.lua)
-- A script that turns a feature on sets its field too (Q is its own).
-- A queue written by an older key layout is refused, never misread; so is
-- the name of a sharded queue (its jobs live in its shard queues, and a
-- client that knew it as plain must read its record again).
-- Returns Q, or nil and the reply that refuses the call.
local function readQueue()
  local c = rcall('HMGET', K.config, 'layout', 'shards', 'outcomes', 'cost', 'tenants', 'waits', 'sched', 'flows', 'life')
  if c[2] then
    return nil, { ESHARDS, 'queue is sharded over ' .. c[2] .. ' shard queues: its calls go to them ' ..
      '(read its record again: echomq_shards)' }
  end
  if c[1] ~= KEY_LAYOUT and rcall('EXISTS', K.seq) == 1 then
    return nil, { ELAYOUT, 'queue key layout is not ' .. KEY_LAYOUT .. ' (written by an older EchoMQ): ' ..
      'drain it with the version that wrote it' }
  end
  -- Only the features that are on get a field: a field set, even to nil,
  -- takes a slot (a plain queue's Q has none).
  local Q = {}
  if c[3] then Q.outcomes = c[3] end
  if c[4] then Q.cost = tonumber(c[4]) end
  if c[5] then Q.tenants = c[5] end
  if c[6] then Q.waits = tonumber(c[6]) end
  if c[7] then Q.sched = tonumber(c[7]) end
  if c[8] then Q.flows = c[8] end
  local l = c[9]
  if l then  -- lua/includes/life.lua
    if string.find(l, 'c', 1, true) then Q.cancels = true end
    if string.find(l, 't', 1, true) then Q.timeouts = true end
    if string.find(l, 'x', 1, true) then Q.expiry = true end
    if string.find(l, 'g', 1, true) then Q.qlimit = true end
    if string.find(l, 'b', 1, true) then Q.burst = true end
  end
  return Q
end
-- The refusal of readQueue alone, for a script that takes no path by Q.
local function layoutError()
  local _, bad = readQueue()
  return bad
end
