#!lua flags=no-writes
--[[ dead: a page of dead-lettered jobs, oldest death first (read-only).
--   KEYS[1..15] the fixed keys of queue q (lua/includes/keys.lua): seq ring gweight
--     glimit gactive paused leases delayed dead lanes glive gserved stats config wake
--   ARGV[1] key prefix "emq:{q}:"
--   ARGV[2] offset   ARGV[3] count
-- Returns {OK, n, n x (id, group, payload, attempts, max attempts, enqueued
-- at, dead at, last error)}.
]]
--@include keys
--@include status
--@include argInt

local off = argInt(ARGV[2], 0, 9007199254740991)
local count = argInt(ARGV[3], 1, 10000)
if not off or not count then return { EINVAL, 'dead: bad offset or count' } end
local ids = rcall('ZRANGE', K.dead, off, off + count - 1, 'WITHSCORES')
local out = { OK, 0 }
for i = 1, #ids, 2 do
  local f = rcall('HMGET', jobKey(ids[i]), 'g', 'p', 'att', 'mx', 'at', 'err')
  if f[1] then
    local n = #out
    out[n + 1] = ids[i]; out[n + 2] = f[1]; out[n + 3] = f[2] or ''
    out[n + 4] = f[3] or '0'; out[n + 5] = f[4] or '0'; out[n + 6] = f[5] or '0'
    out[n + 7] = ids[i + 1]; out[n + 8] = f[6] or ''
    out[2] = out[2] + 1
  end
end
return out
