#!lua flags=no-writes
--[[ dead: a page of dead-lettered jobs, oldest death first (read-only).
-- KEYS: seq dead config jobs att
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] offset   ARGV[3] count
-- Returns {OK, n, n x DEAD_FIELDS values: id, group, payload, attempts, max
-- attempts, enqueued at, dead at, last error, attempt cap}.
]]
--@include record

local off = argInt(ARGV[2], 0, ID_MAX)
local count = argInt(ARGV[3], 1, BATCH_MAX)
if not off or not count then return { EINVAL, 'dead: bad offset or count' } end
local bad = layoutError()
if bad then return bad end
local ids = rcall('ZRANGE', K.dead, off, off + count - 1, 'WITHSCORES')
local out = { OK, 0 }
for i = 1, #ids, 2 do
  local id = ids[i]
  local rec = rcall('HGET', K.jobs, id)
  if rec then
    local g, p, at, cap, mx = unpackRecord(rec)
    local n = #out
    out[n + 1] = id; out[n + 2] = g; out[n + 3] = p
    local att, err = unpackAtt(rcall('HGET', K.att, id))
    out[n + 4] = att; out[n + 5] = mx; out[n + 6] = at
    out[n + 7] = ids[i + 1]; out[n + 8] = err
    out[n + 9] = S(cap)
    out[2] = out[2] + 1
  end
end
return out
