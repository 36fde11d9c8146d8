--@include typeGuard
--@include record
-- The keys a take call (lua/take.lua) may touch, by what it does: a plain
-- claim of one turn writes att, gactive, gserved and reads jobs after its
-- first write (the pending set it pops is its first write, the lane's
-- settings are read before it); more turns pop several lanes' pending sets.
-- Settling, and the recovery of due work, write first: then every key of
-- the queue is checked, with the pending sets of the lanes of the jobs
-- they move and of the lanes the claim may then serve.
local function takeGuard(acks, fails, due, n, turns)
  local want = { [K.jobs] = 'hash', [K.att] = 'hash', [K.gactive] = 'hash', [K.gserved] = 'hash' }
  local ids = {}
  for _, a in ipairs(acks) do ids[#ids + 1] = a[1] end
  for _, f in ipairs(fails) do ids[#ids + 1] = f[1] end
  local groups = {}
  if due then
    for _, id in ipairs(due.delayed) do ids[#ids + 1] = id end
    for _, id in ipairs(due.leases) do ids[#ids + 1] = id end
    for _, g in ipairs(due.throttled) do groups[#groups + 1] = g end
  end
  local full = #ids + #groups > 0
  if n > 0 and (turns > 1 or full) then
    for _, g in ipairs(rcall('LRANGE', K.ring, 0, turns - 1)) do groups[#groups + 1] = g end
  end
  if #ids > 0 then
    for _, rec in ipairs(callSliced('HMGET', K.jobs, ids)) do
      if rec then groups[#groups + 1] = (unpackRecord(rec)) end
    end
  end
  if full then
    for name, key in pairs(K) do want[key] = KEY_TYPES[name] end
  end
  for _, g in ipairs(groups) do want[pendingKey(g)] = 'zset' end
  return want
end
