--@include lane
--@include record
--@include deadOutcome
--@include flowLinks
-- The end of a failed attempt of job `id` of lane g, already out of the
-- leases with its lane's active count lowered: dead-letter it when it has
-- used the attempts it is allowed (att >= allowed) or when delay is DEAD_NOW, else put it back
-- in its lane at its mint position (delay 0) or in the delayed set (delay >
-- 0, or BACKOFF: 1 s * 2^(att-1), at most 1 h). `reason`, if given, becomes
-- its last error (kept beside the attempt count and the ended delivery's token). The caller fixes the ring.
-- Returns the outcome: FAIL_RETRY, FAIL_DELAYED or FAIL_DEAD.
local DEAD_NOW, BACKOFF = -2, -1
local function endAttempt(Q, id, g, att, token, allowed, delay, now, reason)
  if reason then rcall('HSET', K.att, id, packAtt(token, att, g, reason)) end
  if delay == DEAD_NOW or att >= allowed then
    rcall('ZADD', K.dead, S(now), id)
    rcall('HINCRBY', K.stats, 'dead', 1)
    addLive(Q, g, -1)
    if Q.outcomes then deadOutcome(Q, id, g, att, token, now, reason) end
    if Q.flows then FL.childGone(Q, id, now, att, reason) end
    return FAIL_DEAD
  end
  if delay == BACKOFF then delay = math.min(1000 * 2 ^ (att - 1), 3600000) end
  if Q.outcomes then emit(Q, 'failed', id, g, att, { 'reason', reason or '', 'retry', S(delay) }) end
  if delay == 0 then
    rcall('ZADD', pendingKey(g), id, id)
    return FAIL_RETRY
  end
  rcall('ZADD', K.delayed, S(now + delay), id)
  return FAIL_DELAYED
end
