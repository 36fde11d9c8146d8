--@include okey
--@include record
--@include ticks
-- Schedules (docs/keys.md, "Schedules"; docs/operations.md, "Periodic
-- jobs"). Their keys are built from the prefix, like the outcome keys, so
-- the claim path takes no more keys than it did without them:
--   s:<name>  hash   one schedule: its spec and its state (fields below)
--   sdue      zset   armed schedules (not paused, not ended) by next tick
--   sdir      zset   every schedule by name (score 0): the listing
--   sjob      hash   job id -> "<tick ms> <schedule name>" of a tick's job
--   sjobs     zset   the same ids by when they were fired (the sweep's order)
-- The config field `sched` holds the next tick of the earliest armed
-- schedule (sdue's head score), absent while none is armed: the one field
-- the claim path reads (readQueue, lua/includes/base.lua: Q.sched), kept by every write to sdue.
-- Hash fields. Spec: kind ('every' or 'cron'), every (ms), cron (as
-- written), cronx (canonical), zone (its name), tzr (its rules:
-- lua/includes/ticks.lua), lane, payload, maxatt, keepms, keeplast, est,
-- start, end, limit (0 = none), missed ('once' or 'skip': MISSED_*),
-- grace (ms), overlap ('fire' or 'skip': OVERLAP_*); spec and tspec (SHA1s
-- of the whole spec and of its timing part, as compared by an upsert).
-- State: anchor (an `every` grid's first tick), next (the tick it fires
-- next), last (the latest tick handled: fired or skipped; no tick at or
-- before it fires again), ftick, fat, fjob (the
-- latest tick fired, when, its job), runs, skips, paused ('1'), ended
-- ('limit' or 'end'), created, updated.
-- One table of functions: one local in a script that includes it.
local Sched = {}
function Sched.key(name) return P .. 's:' .. name end
-- A schedule's hash as a table (empty when absent).
function Sched.read(name)
  local h, r = {}, rcall('HGETALL', Sched.key(name))
  for i = 1, #r, 2 do h[r[i]] = r[i + 1] end
  return h
end
-- Where job id is: 'pending', 'leased', 'delayed', 'dead' or
-- 'completed' (retained), nil when it is gone (acked and not retained,
-- or deleted). (Words, not the JOB_* numbers: each constant a script
-- uses is a local of its own, and take is near Lua's 200.)
function Sched.place(id)
  if not id or id == '' then return nil end
  local rec = rcall('HGET', K.jobs, id)
  if not rec then
    return rcall('ZSCORE', okey('done'), id) and 'completed' or nil
  end
  if rcall('ZSCORE', K.leases, id) then return 'leased' end
  if rcall('ZSCORE', K.delayed, id) then return 'delayed' end
  if rcall('ZSCORE', pendingKey((unpackRecord(rec))), id) then return 'pending' end
  return 'dead'
end
-- Sets config `sched` to sdue's head (after any write to sdue) and
-- returns it as a number; nil (and the field gone) when sdue is empty.
function Sched.arm()
  local h = rcall('ZRANGE', okey('sdue'), 0, 0, 'WITHSCORES')
  if not h[2] then
    rcall('HDEL', K.config, 'sched')
    return nil
  end
  rcall('HSET', K.config, 'sched', h[2])
  return tonumber(h[2])
end
-- Is h an armed schedule whose fields all read (so a fire cannot fail
-- part-way)? Its timing is checked apart (Ticks.timing).
function Sched.armed(h)
  if not h.lane or not h.payload or h.paused or h.ended then return false end
  for _, f in ipairs({ 'maxatt', 'keepms', 'keeplast', 'est', 'limit', 'grace', 'runs', 'skips' }) do
    if not string.match(h[f] or '', '^%d+$') then return false end
  end
  return (h.missed == 'once' or h.missed == 'skip') and (h.overlap == 'fire' or h.overlap == 'skip')
end
