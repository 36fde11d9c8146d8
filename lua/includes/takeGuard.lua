--@include typeGuard
--@include many
--@include record
-- The keys a take call (lua/take.lua) may touch after its first write, by
-- what it does. A claim writes att, gactive, gserved and reads jobs after
-- its first write; the pending sets it pops are read and popped by protected
-- calls (lua/includes/turns.lua), so they need no check. Acks read jobs, att
-- and leases before settling's first write, then write stats, gactive,
-- glive, and for a lane left idle (directory) or freed from its limit
-- (ring): those keys are checked whole, without reading which lanes are
-- which (a few TYPE calls per call, not per job). Fails and the recovery of
-- due work check every key, with the pending sets of the lanes of the jobs
-- they move.
local ACK_KEYS = { 'stats', 'gactive', 'glive', 'gweight', 'glimit', 'paused', 'grate', 'gbucket',
                   'gcap', 'lanes', 'gserved', 'ring', 'wake', 'throttled' }
local function takeGuard(ackIds, fails, due, n)
  local want = { [K.gactive] = 'hash' }
  if n > 0 then want[K.gserved] = 'hash'; want[K.jobs] = 'hash'; want[K.att] = 'hash' end
  local ids, groups = {}, {}
  for _, f in ipairs(fails) do ids[#ids + 1] = f[1] end
  if due then
    for _, id in ipairs(due.delayed) do ids[#ids + 1] = id end
    for _, id in ipairs(due.leases) do ids[#ids + 1] = id end
    for _, g in ipairs(due.throttled) do groups[#groups + 1] = g end
  end
  if #ids + #groups > 0 then
    for name, key in pairs(K) do want[key] = KEY_TYPES[name] end
    for _, rec in ipairs(#ids > 0 and callSliced('HMGET', K.jobs, ids) or {}) do
      if rec then groups[#groups + 1] = (unpackRecord(rec)) end
    end
  elseif #ackIds > 0 then
    for _, name in ipairs(ACK_KEYS) do want[K[name]] = KEY_TYPES[name] end
  end
  for _, g in ipairs(groups) do want[pendingKey(g)] = 'zset' end
  return want
end
