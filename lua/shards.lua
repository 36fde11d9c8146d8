#!lua flags=no-writes
--[[ shards: the record of a sharded queue (read-only).
-- KEYS: config
-- ARGV (lua/args.txt, `shards`): none (it reads none: it takes no key but
--   config, so it includes nothing)
-- Returns {OK, n, names}: n shard queues and their names, separated by
-- spaces, in shard order; {OK, 0, ''} for a plain queue.
]]
local r = rcall('HMGET', K.config, 'shards', 'shardnames')
return { OK, tonumber(r[1] or '0') or 0, r[2] or '' }
