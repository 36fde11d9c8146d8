--@include base
-- Refuses a call before its first write when a key it may touch holds the
-- wrong type. Lua scripts do not roll back, so a WRONGTYPE part-way through
-- would leave a half write (tests/c/server/half_write_test.cpp lists where
-- that happens). `want` maps each key the script will write (the leases, a
-- lane's pending zset, ...) to its type: 'string', 'hash', 'list', 'set' or
-- 'zset'. An absent key always fits. Costs one TYPE per key.
-- Returns nil when every key fits, else a reply to return as it is:
-- {-20 (ECHOMQ_ESERVER), message naming the key}.
local function typeGuard(want)
  for key, t in pairs(want) do
    local got = rcall('TYPE', key)['ok']
    if got ~= 'none' and got ~= t then
      return { -20, 'WRONGTYPE ' .. key .. ' holds a ' .. got .. ', not a ' .. t ..
        '; nothing was changed' }
    end
  end
  return nil
end
-- The type of each fixed key (docs/keys.md), by name.
local KEY_TYPES = {
  seq = 'string', ring = 'list', gweight = 'hash', glimit = 'hash', gactive = 'hash',
  paused = 'set', leases = 'zset', delayed = 'zset', dead = 'zset', lanes = 'zset',
  glive = 'hash', gserved = 'hash', stats = 'hash', config = 'hash', wake = 'list',
  jobs = 'hash', att = 'hash', grate = 'hash', gbucket = 'hash', throttled = 'zset', gcap = 'hash',
  idem = 'hash', idemexp = 'zset', gvt = 'hash', gdebt = 'zset', gwait = 'hash', est = 'hash',
  done = 'zset', doneexp = 'zset', donecnt = 'zset', fin = 'hash', started = 'hash', keep = 'hash',
  waiters = 'hash', progress = 'hash', events = 'stream',
  -- the lifecycle keys (lua/includes/life.lua)
  cancels = 'hash', tmo = 'hash', expiry = 'zset', xdrop = 'hash', qlimit = 'hash', gburst = 'hash',
  bring = 'list', notice = 'stream',
  sdue = 'zset', sdir = 'zset', sjob = 'hash', sjobs = 'zset',
  parents = 'zset', deps = 'hash', up = 'hash',
}
-- The per-lane keys a change to lane (or tenant entry) g may write: its
-- pending set, and its tenant's inner ring (lua/includes/base.lua).
local function laneKeyTypes(g, want)
  if isTenant(g) then want[innerKey(g)] = 'list'; return want end
  want[P .. 'g:' .. g .. ':pending'] = 'zset'
  local te = tenantOf(g)
  if te then want[innerKey(te)] = 'list' end
  return want
end
-- typeGuard over every fixed key the script was given and the pending sets
-- of the lanes `groups` (may be nil): one TYPE per key, for the calls that
-- are not on a hot path (settings, redrive, repair, and the rare paths of
-- take).
local function guardKeys(groups)
  local want = {}
  for name, key in pairs(K) do want[key] = KEY_TYPES[name] end
  for _, g in ipairs(groups or {}) do laneKeyTypes(g, want) end
  return typeGuard(want)
end
