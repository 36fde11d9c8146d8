--[[ shardinit: make q a sharded queue over n shard queues, or open it when
-- it already is one with n shards.
-- KEYS: seq lanes config
-- ARGV (lua/args.txt, `shardinit`): count 1..SHARDS_MAX, names (the count
--   shard queues' names, separated by spaces)
-- Returns {OK, names}: the names stored (those of the first creation, so
-- every client routes alike); {ESHARDS, msg} when q is sharded with another
-- count or is a plain queue in use (it holds jobs or lane settings);
-- {EINVAL, msg}. The refusals change nothing.
]]
--@include args
--@include base

local A, bad = readArgs()
if not A then return bad end
local n = argInt(A.count, 1, SHARDS_MAX)
local names = A.names
if not n or type(names) ~= 'string' or #names == 0 then
  return { EINVAL, 'shardinit: bad shard count or names' }
end
local r = rcall('HMGET', K.config, 'shards', 'shardnames')
if r[1] then
  if tonumber(r[1]) ~= n then
    return { ESHARDS, 'queue is sharded over ' .. r[1] .. ' shard queues, not ' .. n }
  end
  return { OK, r[2] }
end
if rcall('EXISTS', K.seq) == 1 or rcall('EXISTS', K.lanes) == 1 then
  return { ESHARDS, 'queue is in use as a plain queue (it holds jobs or lane settings): ' ..
    'it cannot become sharded' }
end
rcall('HSET', K.config, 'layout', KEY_LAYOUT, 'shards', n, 'shardnames', names)
return { OK, names }
