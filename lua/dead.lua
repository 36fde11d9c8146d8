#!lua flags=no-writes
--[[ dead: a page of dead-lettered jobs, oldest death first (read-only).
-- KEYS: seq dead config jobs att
-- ARGV (lua/args.txt, `dead`): offset, count
-- Returns {OK, n, n `dead` rows of DEAD_FIELDS values (lua/replies.txt)}.
]]
--@include args
--@include record

local A, bad = readArgs()
if not A then return bad end
local off = argInt(A.offset, 0, ID_MAX)
local count = argInt(A.count, 1, BATCH_MAX)
if not off or not count then return { EINVAL, 'dead: bad offset or count' } end
bad = layoutError()
if bad then return bad end
local ids = rcall('ZRANGE', K.dead, off, off + count - 1, 'WITHSCORES')
local out = { OK, 0 }
for i = 1, #ids, 2 do
  local id = ids[i]
  local rec = rcall('HGET', K.jobs, id)
  if rec then
    local g, p, at, allowed, mx, meta = unpackRecord(rec)
    local n = #out
    out[n + DEAD_ID] = id; out[n + DEAD_GROUP] = g; out[n + DEAD_PAYLOAD] = p
    local att, err, token = unpackAtt(rcall('HGET', K.att, id))
    out[n + DEAD_ATTEMPTS] = att; out[n + DEAD_MAX_ATTEMPTS] = mx; out[n + DEAD_ENQUEUED_AT] = at
    out[n + DEAD_DEAD_AT] = ids[i + 1]; out[n + DEAD_LAST_ERROR] = err; out[n + DEAD_ALLOWED] = S(allowed)
    out[n + DEAD_TOKEN] = S(token); out[n + DEAD_META] = meta or ''
    out[2] = out[2] + 1
  end
end
return out
