--@include typeGuard
--@include many
--@include record
--@include okey
--@include recover
--@include cost
--@include lifeTake
-- The keys a take call (lua/take.lua) may write, or read after its first
-- write, that no read before that write has checked. Reads before it:
-- dueWork (delayed, leases, throttled, when claiming); settle (att and
-- leases, the records of fails; then for the acks gactive, glive and
-- glimit; it checks the jobs hash and the keys of its rare paths itself
-- unless they are in this list; its first write, to stats, fails whole);
-- a claim alone reads the ring and the lane settings before its first
-- write (the pending sets it pops are read and popped by protected
-- calls: lua/includes/laneTurn.lua). What is left: for a claim, the
-- per-lane counts and per-job hashes it writes after popping, and after
-- acks the ring and lane settings it reads (none when C.plain: no limit,
-- rate or throttle anywhere), the weights when C.weighted, and the wake-up
-- list when `wake`. Fails and the recovery of due work check every key,
-- with the pending sets of the lanes of the jobs they move.
local function takeGuard(C, due, wake)
  local want = {}
  local ids, groups = {}, {}
  for j = 1, C.fails.n do ids[j] = C.fails.id[j] end
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
  elseif C.n > 0 then
    -- gactive: settle reads it only when an ack is accepted; jobs: the
    -- claim reads it after popping, and acks read no record.
    want[K.gactive] = 'hash'; want[K.gserved] = 'hash'; want[K.jobs] = 'hash'
    if C.acks.n == 0 then
      want[K.att] = 'hash'
    else
      want[K.ring] = 'list'
      if not C.plain then want[K.glimit] = 'hash'; want[K.grate] = 'hash'; want[K.gbucket] = 'hash' end
      if C.weighted then want[K.gweight] = 'hash' end
    end
    if wake then want[K.wake] = 'list' end
  end
  for _, g in ipairs(groups) do laneKeyTypes(g, want) end
  return want
end
-- Everything a take call reads before its first write, and the type check
-- of every key it may touch (no half writes: lua/includes/typeGuard.lua):
-- the work due now (dueWork), whether any limit, rate or throttle exists
-- (C.plain: else the turns read no lane settings), the keys of the
-- features that are on (outcomes, cost mode with its estimates, C.est, and
-- the lanes in debt that may come back now, wait figures, the lifecycle's:
-- lua/includes/lifeTake.lua). Returns the due
-- work, the lanes in debt (cost mode), the keys checked (key -> type), or
-- a typeGuard reply last.
local function takeReads(Q, C, now, wake)
  local due = C.n > 0 and dueWork(now, RECOVER_MAX) or nil
  C.plain = C.n > 0 and rcall('EXISTS', K.glimit, K.grate, K.gbucket) == 0
  local checked = takeGuard(C, due, wake)
  -- Schedules: the ticks due now (lua/includes/fire.lua), fired by recover.
  if due and Q.sched and Q.sched <= now then due.ticks = Fire.due(now, checked) end
  if Q.outcomes then
    for _, name in ipairs(OUTCOME_KEYS) do checked[okey(name)] = KEY_TYPES[name] end
    checked[K.config] = 'hash'
  end
  local debt = nil
  if Q.cost then
    checked[K.gvt] = 'hash'; checked[K.gdebt] = 'zset'; checked[K.gweight] = 'hash'
    C.est = rcall('EXISTS', K.est) == 1
    if C.est then checked[K.est] = 'hash'; C.took = {} end
    if C.n > 0 then
      debt = debtDue(Q)
      if #debt.back > 0 then
        for _, name in ipairs({ 'ring', 'wake', 'throttled', 'paused', 'glimit', 'gactive', 'grate', 'gbucket' }) do
          checked[K[name]] = KEY_TYPES[name]
        end
      end
    end
  end
  if Q.waits then checked[okey('gwait')] = 'hash' end
  if Q.cancels or Q.timeouts or Q.expiry or Q.qlimit or Q.burst then Life.takeReads(Q, C, due, checked, now) end
  return due, debt, checked, typeGuard(checked)
end
