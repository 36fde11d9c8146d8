--@include typeGuard
--@include many
--@include record
-- The keys a take call (lua/take.lua) may write, or read after its first
-- write, that no read before that write has checked. Reads before it:
-- dueWork (delayed, leases, throttled, when claiming); settle (att and
-- leases, the records of fails; then for the acks gactive, glive and
-- glimit; it checks the jobs hash and the keys of its rare paths itself
-- unless they are in this list; its first write, to stats, fails whole);
-- a claim alone reads the ring and the lane settings before its first
-- write (the pending sets it pops are read and popped by protected
-- calls: lua/includes/turns.lua). What is left: for a claim, the per-lane
-- counts and per-job hashes it writes after popping, and after acks the
-- ring and lane settings it reads (none when `plain`: no limit, rate or
-- throttle anywhere), the weights when `weighted`, and the wake-up list when
-- `wake`. Fails and the recovery of due work check every key, with the
-- pending sets of the lanes of the jobs they move.
local function takeGuard(ackIds, fails, due, n, plain, weighted, wake)
  local want = {}
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
  elseif n > 0 then
    -- gactive: settle reads it only when an ack is accepted; jobs: the
    -- claim reads it after popping, and acks read no record.
    want[K.gactive] = 'hash'; want[K.gserved] = 'hash'; want[K.jobs] = 'hash'
    if #ackIds == 0 then
      want[K.att] = 'hash'
    else
      want[K.ring] = 'list'
      if not plain then want[K.glimit] = 'hash'; want[K.grate] = 'hash'; want[K.gbucket] = 'hash' end
      if weighted then want[K.gweight] = 'hash' end
    end
    if wake then want[K.wake] = 'list' end
  end
  for _, g in ipairs(groups) do laneKeyTypes(g, want) end
  return want
end
