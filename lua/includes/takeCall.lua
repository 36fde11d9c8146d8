--@include args
-- The arguments of a take call (lua/args.txt, `take`; what they hold:
-- lua/take.lua), checked before any read. Returns C, the call passed down
-- the claim path: readArgs' table with its numbers read in place (lease,
-- n, turns, nonce; weighted a boolean; fails.delay and charges.cost
-- numbers), results as ack id -> result bytes, drops as ack id -> why its
-- result was dropped; the claim path adds what it learns before its first write
-- (now, plain, est, took: lua/includes/takeGuard.lua). Or nil and {EINVAL
-- or ETOOLARGE, msg}. Ack ids and tokens are matched as strings (settle),
-- not parsed: any but the decimal strings a claim returned finds no job or
-- a stale delivery.
local function takeCall()
  local A, bad = readArgs()
  if not A then return nil, bad end
  local lease, n = argInt(A.lease, 0, LEASE_MAX_MS), argInt(A.n, 0, BATCH_MAX)
  local turns, nonce = argInt(A.turns, 1, BATCH_MAX), argInt(A.nonce, 1, ID_MAX)
  if not lease or not n or not turns or (n > 0 and lease < 1) then
    return nil, { EINVAL, 'take: bad lease, count or turns' }
  end
  if not nonce then return nil, { EINVAL, 'take: bad nonce' } end
  if A.flags ~= '' and not string.find(A.flags, '^[ws]+$') then return nil, { EINVAL, 'take: bad flags' } end
  A.lease, A.n, A.turns, A.nonce, A.weighted = lease, n, turns, nonce, A.weighted == '1'
  local fails = A.fails
  for j = 1, fails.n do
    local delay = argInt(fails.delay[j], -3, DELAY_MAX_MS)
    if not argInt(fails.id[j], 1, ID_MAX) or not argInt(fails.token[j], 1, ID_MAX) or not delay
       or #fails.reason[j] > REASON_MAX then
      return nil, { EINVAL, 'take: bad fail entry' }
    end
    fails.delay[j] = delay
  end
  local charges = A.charges
  for c = 1, charges.n do
    local g, cost = charges.lane[c], argInt(charges.cost[c], 0, ID_MAX)
    if #g < 1 or #g > GROUP_NAME_MAX or string.find(g, '%c') or not cost then
      return nil, { EINVAL, 'take: bad charge entry' }
    end
    charges.cost[c] = cost
  end
  local results = A.results
  local byId = results  -- no rows: no id is in it
  if results.n > 0 then byId = {} end
  for r = 1, results.n do
    local id, bytes = results.id[r], results.result[r]
    if not argInt(id, 1, ID_MAX) then return nil, { EINVAL, 'take: bad result entry' } end
    if #bytes > RESULT_MAX then
      return nil, { ETOOLARGE, 'take: result of job ' .. id .. ' is ' .. #bytes .. ' bytes, over ' .. RESULT_MAX }
    end
    byId[id] = bytes
  end
  local drops = A.drops
  local whyById = drops  -- as results: no rows, no id
  if drops.n > 0 then whyById = {} end
  for d = 1, drops.n do
    local id, why = drops.id[d], drops.reason[d]
    if not argInt(id, 1, ID_MAX) or #why > REASON_MAX then return nil, { EINVAL, 'take: bad drop entry' } end
    whyById[id] = why
  end
  local C = A
  C.results, C.drops = byId, whyById
  return C
end
