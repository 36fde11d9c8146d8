--@include base
-- Idempotency keys written and read (the format: lua/includes/dedup.lua):
-- hash hkey maps each key to "<job id> <window end ms>", zset zkey scores
-- the keys by their window end. The functions take their key names as
-- arguments: enqueue passes its own keys, a schedule's fire
-- (lua/includes/fire.lua) builds them from the prefix. One table of
-- functions: one local in a script that includes it.
local Idem = {}
-- Writes `set` (key, value pairs) and `exp` (end, key pairs). Drops up to
-- `sweep` expired keys first, and past DEDUP_KEYS_MAX the keys closest to
-- their end.
function Idem.store(hkey, zkey, set, exp, now, sweep)
  local old = rcall('ZRANGEBYSCORE', zkey, '-inf', S(now), 'LIMIT', 0, sweep)
  if #old > 0 then
    callSliced('HDEL', hkey, old)
    callSliced('ZREM', zkey, old)
  end
  if #set == 0 then return end
  callSliced('HSET', hkey, set)
  callSliced('ZADD', zkey, exp)
  local over = rcall('ZCARD', zkey) - DEDUP_KEYS_MAX
  if over > 0 then
    local gone = rcall('ZPOPMIN', zkey, over)
    local names = {}
    for j = 1, #gone, 2 do names[#names + 1] = gone[j] end
    callSliced('HDEL', hkey, names)
  end
end
-- The job id a key names while its window is open at `now`, else nil.
function Idem.held(hkey, key, now)
  local id, ends = string.match(rcall('HGET', hkey, key) or '', '^(%d+) (%d+)$')
  if id and tonumber(ends) > now then return id end
  return nil
end
