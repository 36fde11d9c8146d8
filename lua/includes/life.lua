--@include base
--@include typeGuard
-- The lifecycle features (docs/architecture.md, "Lifecycle"): cancel, time
-- limits, start deadlines, the queue-wide ceiling and rate, and lane limits
-- that burst. Each is on while config field `life` holds its letter (read
-- by readQueue with the other settings, lua/includes/base.lua):
--   c  Q.cancels   a leased job is marked canceled (hash `cancels`)
--   t  Q.timeouts  time limits: a job's own (hash `tmo`) or the queue's
--                  default (config `timeout`)
--   x  Q.expiry    start deadlines (zset `expiry`)
--   g  Q.qlimit    a queue-wide ceiling or rate (hash `qlimit`)
--   b  Q.burst     a lane or tenant carries a burst ceiling (hash `gburst`)
-- A queue that uses none of them pays one field of the HMGET every script
-- opens with. Their keys are built from the prefix, as the outcome keys are
-- (lua/includes/okey.lua): the hot scripts take no more KEYS for them.
-- Their helpers are the fields of one table, Life (this file and the
-- lifecycle includes that extend it): a Lua chunk holds at most 200 locals,
-- and take's is near it.
local Life = {}
function Life.key(name) return P .. name end
-- The keys of the lifecycle features (their types: KEY_TYPES, docs/keys.md).
Life.KEYS = { 'cancels', 'tmo', 'expiry', 'xdrop', 'qlimit', 'gburst', 'bring', 'notice' }
Life.LETTERS = { cancels = 'c', timeouts = 't', expiry = 'x', qlimit = 'g', burst = 'b' }
-- Adds every lifecycle key to `want` (key -> type) for typeGuard.
function Life.keyTypes(want)
  for _, name in ipairs(Life.KEYS) do want[P .. name] = KEY_TYPES[name] end
  return want
end
-- Turns feature `f` (a field of Q: 'cancels', ...) on or off in config
-- `life` and in Q; no write when it already is.
function Life.set(Q, f, on)
  if (Q[f] == true) == on then return end
  local cur, letter = rcall('HGET', K.config, 'life') or '', Life.LETTERS[f]
  if on then cur = cur .. letter else cur = (string.gsub(cur, letter, '')) end
  if cur == '' then rcall('HDEL', K.config, 'life') else rcall('HSET', K.config, 'life', cur) end
  if on then Q[f] = true else Q[f] = nil end
end
-- Job id's lifecycle entries go: its cancel mark and its start deadline,
-- and with `all` (the job goes whole) its time limit too (a dead job keeps
-- it for a redrive). The cancel flag goes with the last mark, so a queue's
-- settlements stop looking for marks once none is left.
function Life.forget(Q, id, all)
  if Q.cancels then
    rcall('HDEL', P .. 'cancels', id)
    if rcall('EXISTS', P .. 'cancels') == 0 then Life.set(Q, 'cancels', false) end
  end
  if Q.expiry then rcall('ZREM', P .. 'expiry', id); rcall('HDEL', P .. 'xdrop', id) end
  if all and Q.timeouts then rcall('HDEL', P .. 'tmo', id) end
end
