--@include attempt
--@include dropJob
--@include emit
--@include okey
-- The one place a job is canceled (DESIGN.md, "Once": a canceled job never
-- runs again, and an expired one never starts). Job `id` of lane g has left
-- the place it waited in (its lane's pending set, the delayed set, or the
-- leases with its lane's active count lowered; the caller fixes the ring)
-- and goes to the dead letters with its last error `why` ("canceled",
-- "canceled: <reason>", "expired"), or with `drop` is removed whole. Its
-- lifecycle entries go; stats count it under `kind` ("canceled" or
-- "expired"), and the event stream gets a `kind` entry before the `dead`
-- (or `deleted`) one. A job of a flow is, to its parent, a death with
-- reason `why` (its link's policy applies, lua/includes/flowLinks.lua),
-- whether it is dead-lettered or removed; a parent that waited for its
-- children has left `parents` (the caller cancels those children first or
-- after: lua/cancel.lua).
function Life.cancel(Q, id, g, kind, why, drop, now)
  local att, _, token = unpackAtt(rcall('HGET', K.att, id))
  rcall('HINCRBY', K.stats, kind, 1)
  if Q.outcomes then emit(Q, kind, id, g, att, { 'reason', why, 'removed', drop and '1' or '0' }) end
  if drop then
    if Q.flows then FL.childGone(Q, id, now, att, why) end
    Life.dropRecord(Q, id)
    rcall('HINCRBY', K.stats, 'deleted', 1)
    addLive(Q, g, -1)
    if Q.outcomes then emit(Q, 'deleted', id, g, att) end
    return
  end
  Life.forget(Q, id, false)
  endAttempt(Q, id, g, att, token, 0, DEAD_NOW, now, why)  -- its last error, then the dead letters
end
-- Every key a cancel may write, with the pending sets (and tenant rings) of
-- the lanes `groups`, checked before the first write (no half writes): a
-- typeGuard reply, or nil. `want` (may be nil): more keys (key -> type). The rare paths only (a cancel, a settlement or an
-- expired lease of a marked job, an expired start deadline).
function Life.cancelGuard(groups, want)
  want = Life.keyTypes(want or {})
  for name, key in pairs(K) do want[key] = KEY_TYPES[name] end
  for _, name in ipairs(OUTCOME_KEYS) do want[okey(name)] = KEY_TYPES[name] end
  for _, g in ipairs(groups) do laneKeyTypes(g, want) end
  return typeGuard(want)
end
-- Worker engines holding job id hear of its cancel at once: they read the
-- `notice` stream (XREAD BLOCK) while they run jobs. About 1,000 entries
-- are kept: an engine reads on from where it was, so only one away for
-- longer than that many cancels misses one, and learns at its next
-- extension instead.
function Life.notice(id)
  rcall('XADD', P .. 'notice', 'MAXLEN', '~', '1000', '*', 'id', id)
end
-- Leased job id is marked canceled with last error `why` (its holder
-- settles it as canceled: lua/includes/cancelHeld.lua), once.
function Life.mark(Q, id, why)
  if rcall('HGET', Life.key('cancels'), id) then return end
  rcall('HSET', Life.key('cancels'), id, why)
  Life.set(Q, 'cancels', true)
  Life.notice(id)
end
