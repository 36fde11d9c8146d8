--@include typeGuard
--@include many
--@include record
-- The keys a take call (lua/take.lua) may touch, by what it does: a plain
-- claim of one turn writes att, gactive, gserved and reads jobs after its
-- first write (the pending set it pops is its first write, the lane's
-- settings are read before it); more turns pop several lanes' pending sets.
-- Acks write stats, gactive, glive; a lane left idle leaves the directory
-- (its settings read, lanes and gserved written) and a lane under a limit
-- may rejoin the ring (paused, grate, gbucket read; ring, wake, throttled
-- written): those keys are checked only for such lanes. Fails and the
-- recovery of due work check every key, with the pending sets of the lanes
-- of the jobs they move. Once anything is settled or recovered, the claim's
-- first pop is no longer the first write: its lanes' pending sets are
-- checked too.
local function takeGuard(acks, fails, due, n, turns)
  local want = { [K.gactive] = 'hash' }
  if n > 0 then want[K.gserved] = 'hash' end
  local ids = {}
  for _, f in ipairs(fails) do ids[#ids + 1] = f[1] end
  local groups = {}
  if due then
    for _, id in ipairs(due.delayed) do ids[#ids + 1] = id end
    for _, id in ipairs(due.leases) do ids[#ids + 1] = id end
    for _, g in ipairs(due.throttled) do groups[#groups + 1] = g end
  end
  local full = #ids + #groups > 0
  if full then
    for name, key in pairs(K) do want[key] = KEY_TYPES[name] end
    for _, rec in ipairs(#ids > 0 and callSliced('HMGET', K.jobs, ids) or {}) do
      if rec then groups[#groups + 1] = (unpackRecord(rec)) end
    end
  elseif #acks > 0 then
    -- (jobs, att and leases are read before settling's first write.)
    local aids = {}
    for i, a in ipairs(acks) do aids[i] = a[1] end
    local lanes, dropped = {}, {}
    for _, rec in ipairs(callSliced('HMGET', K.jobs, aids)) do
      if rec then
        local g = unpackRecord(rec)
        if not dropped[g] then dropped[g] = 0; lanes[#lanes + 1] = g end
        dropped[g] = dropped[g] + 1
      end
    end
    want[K.stats] = 'hash'
    if #lanes > 0 then
      local live, lim = readFields(K.glive, lanes), laneSettings(lanes, false)
      for _, g in ipairs(lanes) do
        if tonumber(live[g] or '0') - dropped[g] <= 0 then
          want[K.gweight] = 'hash'; want[K.paused] = 'set'; want[K.grate] = 'hash'
          want[K.gcap] = 'hash'; want[K.lanes] = 'zset'
        end
        if lim[g] then
          want[K.paused] = 'set'; want[K.grate] = 'hash'; want[K.gbucket] = 'hash'
          want[K.ring] = 'list'; want[K.wake] = 'list'; want[K.throttled] = 'zset'
          groups[#groups + 1] = g  -- it may rejoin and be served next
        end
      end
    end
  else
    want[K.jobs] = 'hash'; want[K.att] = 'hash'
  end
  if n > 0 and (turns > 1 or full or #acks > 0) then
    for _, g in ipairs(rcall('LRANGE', K.ring, 0, turns - 1)) do groups[#groups + 1] = g end
  end
  for _, g in ipairs(groups) do want[pendingKey(g)] = 'zset' end
  return want
end
