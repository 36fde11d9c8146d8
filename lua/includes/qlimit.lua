--@include life
--@include lane
--@include counts
-- The queue-wide ceiling and rate (Q.qlimit; docs/architecture.md,
-- "Queue-wide ceiling and rate"): hash `qlimit` holds `limit` (jobs leased
-- at once across all lanes), `rate` ("<jobs> <period ms> <burst>") and
-- `bucket` (the rate's token bucket, "<tokens> <base ms>", absent = full).
-- The ceiling counts the leases themselves (jobsIn: one ZCARD), so no
-- settlement keeps a count for it. A claim takes min(n, room) jobs: the
-- rotation still decides whose; at the ceiling, or out of tokens, it
-- takes none without touching the ring.
-- The queue's gate, read once per call: {limit, rate (parsed), bucket};
-- with a ceiling, G.before: the jobs leased before the call's first write
-- (lua/includes/lifeTake.lua).
function Life.queueGate()
  local v = rcall('HMGET', Life.key('qlimit'), 'limit', 'rate', 'bucket')
  return { limit = tonumber(v[1] or ''), rate = parseRate(v[2] or nil), bucket = v[3] or nil }
end
-- The jobs the queue may lease now (room under the ceiling, whole tokens
-- of the rate), and when that is none for want of a token, the server ms
-- the next one is due (nil when a slot must free first).
function Life.queueRoom(G, now, n)
  local room = math.huge
  if G.limit then
    -- Settlements and recoveries only lower the count read before the first
    -- write: with the ceiling far (over n away) the room is over n anyway,
    -- so that count stands in, and the leases are counted again only near it.
    if G.before + n < G.limit then
      room = G.limit - G.before
    else
      G.leased = jobsIn(K.leases)
      room = math.max(G.limit - G.leased, 0)
    end
  end
  if not G.rate and not G.bucket then return room, nil end
  local _, tok, due = rateState(G.rate, G.bucket, now)
  G.tok = tok
  if tok < room then room = math.max(math.floor(tok), 0) end
  return room, room == 0 and due or nil
end
-- A claim's jobs at most (C.n) become the room now; G.room and G.due (a
-- token's due time when there is no room for want of one) are kept for
-- queueAfter and queueNextDue.
function Life.queueCall(G, C, now)
  G.room, G.due = Life.queueRoom(G, now, C.n)
  if G.room < C.n then C.n = G.room end
end
-- After a take call: the tokens of the `taken` jobs are spent, and when
-- its settlements (`settled`, accepted ones) took the queue from its
-- ceiling to below it while there is work, a blocked claimer or idle engine
-- is woken (the ceiling left nobody else to pass the wake-up on). Only a
-- claim that found the queue at its ceiling blocks for it, so settlements
-- that leave the count below the ceiling they found owe no wake-up: the
-- common call reads nothing more here. The leases after the settlements
-- plus the settled are at most G.before (each accepted settlement removed a
-- lease), so a call that found the queue below its ceiling owes none (and
-- checked no key for it). G.leased: the leases counted after the
-- settlements (queueRoom, near the ceiling), read now when not counted.
function Life.queueAfter(G, taken, settled, now)
  if G.rate and taken > 0 then rcall('HSET', P .. 'qlimit', 'bucket', packBucket(G.tok - taken, now)) end
  if settled == 0 or not G.limit or G.before < G.limit then return end
  local leased = G.leased or jobsIn(K.leases)
  if leased + settled >= G.limit and leased + taken < G.limit and rcall('LLEN', K.wake) == 0
     and rcall('LLEN', K.ring) > 0 then
    rcall('RPUSH', K.wake, '1')
  end
end
-- The ms to the next due time `nd` (-1 none), or sooner the queue's next
-- token when the rate left no room.
function Life.queueNextDue(G, nd, now)
  if not G.due then return nd end
  local d = math.max(G.due - now, 0)
  if nd < 0 or d < nd then return d end
  return nd
end
