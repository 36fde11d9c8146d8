#!lua
--[[ enqueue: add n jobs in one call (ids consecutive in mint order).
-- KEYS: seq ring gweight glimit gactive paused leases delayed lanes glive gserved stats config wake jobs att grate gbucket throttled gcap idem idemexp gdebt est
-- ARGV[1] key prefix "emq:{q}:"
-- ARGV[2] delay ms (0 = ready now), or "@<ms>": due at that server time (ms
--   since the epoch; a time past is due now, one more than DELAY_MAX_MS
--   ahead is EINVAL)   ARGV[3] max attempts (0 = queue default)
-- ARGV[4] n   then n pairs: group, payload
-- then, with idempotency keys only: window ms, n keys ("" = none)
-- then, to retain these jobs' outcomes (lua/outconf.lua): "keep", keep ms,
--   keep last (0..KEEP_MAX_MS, 0..KEEP_LAST_MAX, not both 0)
-- then, last, with a cost estimate: "est", units (1..ID_MAX) for each job.
--   In cost mode it is kept per job (key est) and charged at the claim until
--   the real cost replaces it (lua/includes/cost.lua); otherwise checked and
--   ignored.
-- Returns {OK, an `enqueued` head: first id, n}; with keys {OK, the head
-- (first id, jobs enqueued), n ids, n duplicate flags}: an entry whose key the queue saw within its window
-- (or an earlier entry of the call had) is not enqueued and gets the first
-- job's id; {EFULL, msg} when a lane would pass its size
-- cap (pending + delayed jobs; the whole call is refused); {EINVAL, msg} or
-- {ELAYOUT, msg}. A refused call writes nothing.
-- Keeps: I1 (a lane that becomes serviceable joins the ring once, lanes in
-- the order of their first job), I3 (each job lands in exactly one place:
-- its lane or the delayed set). Writes are per lane and per hash, not per job.
]]
--@function
--@include lane
--@include many
--@include record
--@include typeGuard
--@include dedup
--@include marks
--@include emit

local delay = argInt(ARGV[2], 0, DELAY_MAX_MS)
-- An absolute due time, against the server's clock (read below).
local at = not delay and string.sub(ARGV[2] or '', 1, 1) == '@' and argInt(string.sub(ARGV[2], 2), 0, ID_MAX)
if at then delay = 0 end
local maxatt = argInt(ARGV[3], 0, ATTEMPTS_MAX)
local n = argInt(ARGV[4], 1, BATCH_MAX)
if not delay or not maxatt or not n then return { EINVAL, 'enqueue: bad delay, max attempts or count' } end
local nargs = #ARGV
-- An optional cost estimate closes the arguments: "est", units. Taken only
-- when what precedes it is a call the script accepts (a group, payload or
-- key named "est" is never read as the marker).
local estimate
do
  local r = nargs - 2
  if r >= 4 + 2 * n and ARGV[nargs - 1] == 'est' and
     (r == 4 + 2 * n or r == 5 + 3 * n or ((r == 7 + 2 * n or r == 8 + 3 * n) and ARGV[r - 2] == 'keep')) then
    estimate = argInt(ARGV[nargs], 1, ID_MAX)
    if not estimate then return { EINVAL, 'enqueue: bad cost estimate' } end
    nargs = r
  end
end
-- An optional retention of these jobs comes before it: "keep", ms, last.
local keepSpec
if nargs >= 7 and ARGV[nargs - 2] == 'keep' and (nargs == 7 + 2 * n or nargs == 8 + 3 * n) then
  local ms, last = argInt(ARGV[nargs - 1], 0, KEEP_MAX_MS), argInt(ARGV[nargs], 0, KEEP_LAST_MAX)
  if not ms or not last or (ms == 0 and last == 0) then return { EINVAL, 'enqueue: bad retention' } end
  keepSpec = S(ms) .. ' ' .. S(last)
  nargs = nargs - 3
end
local keyed = nargs == 5 + 3 * n
if nargs ~= 4 + 2 * n and not keyed then return { EINVAL, 'enqueue: argument count does not match n' } end
for i = 1, n do
  if #ARGV[3 + 2 * i] == 0 then return { EINVAL, 'enqueue: empty group name' } end
end
local window = keyed and argInt(ARGV[5 + 2 * n], 1, DEDUP_WINDOW_MAX_MS)
if keyed and not window then return { EINVAL, 'enqueue: bad dedup window' } end
local bad = layoutError()
if bad then return bad end
if at then
  delay = math.max(at - serverNowMs(), 0)
  if delay > DELAY_MAX_MS then return { EINVAL, 'enqueue: at is more than ' .. S(DELAY_MAX_MS) .. ' ms ahead' } end
end
-- Entries to enqueue (E: argument index of their group); duplicates get
-- the first job's id and write nothing.
local E, dupOf, keyAt = {}, {}, {}
for i = 1, n do E[#E + 1] = i end
if keyed then
  bad, E, dupOf, keyAt = dedupEntries(n, 5 + 2 * n, window)
  if bad then return bad end
  if #E == 0 then return dedupReply(n, 0, 0, dupOf, {}) end
end
-- The jobs of each lane in mint order (ids follow once minted).
local lanes, count = {}, {}
for _, i in ipairs(E) do
  local g = ARGV[3 + 2 * i]
  if not count[g] then
    -- A delivery state ends its group at "\n" (lua/includes/record.lua).
    if string.find(g, '%c') then return { EINVAL, 'enqueue: group name holds a control character' } end
    local why = laneNameProblem(g)
    if why then return { EINVAL, 'enqueue: ' .. why } end
    count[g] = 0; lanes[#lanes + 1] = g
  end
  count[g] = count[g] + 1
end
-- A lane at its size cap refuses the whole call before any write.
local cq = {}
for i, g in ipairs(lanes) do cq[i] = g end
cq[#cq + 1] = ''
local caps = readFields(K.gcap, cq)
local capped = {}
for _, g in ipairs(lanes) do
  caps[g] = tonumber(caps[g] or caps[''] or '')
  if caps[g] then capped[#capped + 1] = g end
end
if #capped > 0 then
  local live, act = readFields(K.glive, capped), readFields(K.gactive, capped)
  for _, g in ipairs(capped) do
    local waiting = tonumber(live[g] or '0') - tonumber(act[g] or '0')
    if waiting + count[g] > caps[g] then
      return { EFULL, 'enqueue: lane ' .. g .. ' holds ' .. waiting .. ' waiting jobs, its cap is ' ..
        caps[g] .. ': ' .. count[g] .. ' more do not fit (nothing was enqueued)' }
    end
  end
end

local now = serverNowMs()
if maxatt == 0 then maxatt = tonumber(rcall('HGET', K.config, 'maxatt') or '') or DEFAULT_MAX_ATTEMPTS end
-- Everything that can fail comes before the first write (no half writes):
-- the reads that decide which lanes join the ring, then a type check of
-- every key written.
local join, wait = {}, {}
if delay == 0 then
  -- A lane becomes serviceable when it was empty, runs and is below its ceiling.
  local lim = laneSettings(lanes, false)
  local limited = {}
  for _, g in ipairs(lanes) do if lim[g] then limited[#limited + 1] = g end end
  local act = #limited > 0 and readFields(K.gactive, limited) or {}
  local paused = callSliced('SMISMEMBER', K.paused, lanes)
  local rq = {}
  for i, g in ipairs(lanes) do rq[i] = g end
  rq[#rq + 1] = ''
  local rates, buckets = readFields(K.grate, rq), readFields(K.gbucket, lanes)
  for i, g in ipairs(lanes) do
    local was = rcall('EXISTS', pendingKey(g)) == 1
    if not was and paused[i] == 0 and not (lim[g] and tonumber(act[g] or '0') >= lim[g]) then
      local r, b = rates[g] or rates[''] or nil, buckets[g] or nil
      local ok, due = true, nil
      if r or b then
        local o, _, d = rateState(parseRate(r), b, now)
        ok, due = o, d
      end
      if ok then join[#join + 1] = g else wait[#wait + 1] = S(due); wait[#wait + 1] = g end
    end
  end
end
local want = { [K.seq] = 'string', [K.jobs] = 'hash', [K.stats] = 'hash', [K.glive] = 'hash',
               [K.gactive] = 'hash', [K.gserved] = 'hash', [K.lanes] = 'zset',
               [K.leases] = 'zset', [K.delayed] = 'zset', [K.att] = 'hash' }  -- the last three for their marks
for _, g in ipairs(lanes) do if delay == 0 then want[pendingKey(g)] = 'zset' end end
if #wait > 0 then want[K.throttled] = 'zset' end
if #join > 0 then want[K.ring] = 'list'; want[K.wake] = 'list' end
if #join > 0 and COST_Q then want[K.gdebt] = 'zset' end
-- A lane of a tenant joins its inner ring, and its tenant may join the
-- outer ring (lua/includes/lane.lua, joinRing): the keys that reads.
local inTenant = {}
for _, g in ipairs(join) do if tenantOf(g) then inTenant[#inTenant + 1] = g end end
if #inTenant > 0 then
  for _, name in ipairs({ 'paused', 'glimit', 'grate', 'gbucket', 'throttled' }) do want[K[name]] = KEY_TYPES[name] end
  for _, g in ipairs(inTenant) do laneKeyTypes(g, want) end
end
if keyed then want[K.idem] = 'hash'; want[K.idemexp] = 'zset' end
if keepSpec then want[okey('keep')] = 'hash'; want[K.config] = 'hash' end
-- Outside cost mode an estimate would never be read: a plain queue keeps none.
if not COST_Q then estimate = nil end
if estimate then want[K.est] = 'hash' end
if OUTCOMES then want[okey('events')] = 'stream' end
bad = typeGuard(want)
if bad then return bad end

local total = n
n = #E
local last = rcall('INCRBY', K.seq, n)
rcall('HSET', K.config, 'layout', KEY_LAYOUT)
-- The first lane of a tenant turns the queue's tenant paths on (base.lua, TENANTS).
if not TENANTS then
  for _, g in ipairs(lanes) do
    if tenantOf(g) then TENANTS = '1'; rcall('HSET', K.config, 'tenants', '1'); break end
  end
end
markKeys()
local first = last - n + 1
local recs, idsOf = {}, {}
local head = recordHead(now, maxatt, maxatt)
for e, i in ipairs(E) do
  local g = ARGV[3 + 2 * i]
  local id = S(first + e - 1)
  recs[e + e - 1] = id
  recs[e + e] = packRecordWith(head, g, ARGV[4 + 2 * i])
  local l = idsOf[g]
  if not l then l = {}; idsOf[g] = l end
  l[#l + 1] = id
end
callSliced('HSET', K.jobs, recs)
rcall('HINCRBY', K.stats, 'enqueued', n)
local reply = { OK }  -- then an `enqueued` head (lua/replies.txt: ENQUEUED_FIELDS values)
reply[1 + ENQUEUED_FIRST] = first
reply[1 + ENQUEUED_COUNT] = n
if keyed then reply = rememberKeys(total, first, E, dupOf, keyAt, window, now) end
if estimate then
  local ev = {}
  for e = 1, n do ev[e + e - 1] = S(first + e - 1); ev[e + e] = S(estimate) end
  callSliced('HSET', K.est, ev)
end
if keepSpec then
  local kv = {}
  for e = 1, n do kv[e + e - 1] = S(first + e - 1); kv[e + e] = keepSpec end
  callSliced('HSET', okey('keep'), kv)
  rcall('HSET', K.config, 'outcomes', '1', 'keepjob', '1')
end
if OUTCOMES and outcomeConf().enq then
  for e, i in ipairs(E) do emit('enqueued', S(first + e - 1), ARGV[3 + 2 * i], 0) end
end
-- The lanes and their tenants (glive[T/] counts all of T's lanes: lua/includes/lane.lua).
local listed, tenantSeen = {}, {}
for _, g in ipairs(lanes) do
  local te = tenantOf(g)
  if te then
    if not tenantSeen[te] then tenantSeen[te] = true; listed[#listed + 1] = te; count[te] = 0 end
    count[te] = count[te] + count[g]
  end
end
for _, g in ipairs(lanes) do listed[#listed + 1] = g end
local dir = {}
for _, g in ipairs(listed) do dir[#dir + 1] = '0'; dir[#dir + 1] = g end
addCounts(K.glive, listed, count)
callSliced('ZADD', K.lanes, dir, { 'NX' })
if delay > 0 then
  local due, d = S(now + delay), {}
  for _, g in ipairs(lanes) do
    for _, id in ipairs(idsOf[g]) do d[#d + 1] = due; d[#d + 1] = id end
  end
  callSliced('ZADD', K.delayed, d)
  return reply
end
for _, g in ipairs(lanes) do
  local z = {}
  for _, id in ipairs(idsOf[g]) do z[#z + 1] = id; z[#z + 1] = id end
  callSliced('ZADD', pendingKey(g), z)
end
if #wait > 0 then callSliced('ZADD', K.throttled, wait) end
-- In the order of their first job: plain lanes in runs of one RPUSH each, a
-- lane of a tenant through its tenant's inner ring (joinRing).
if #join > 0 then
  local run = {}
  local function pushRun()
    if #run == 0 then return end
    if COST_Q then callSliced('ZREM', K.gdebt, run) end  -- as joinRing (lua/includes/lane.lua)
    callSliced('RPUSH', K.ring, run)
    run = {}
  end
  for _, g in ipairs(join) do
    if #inTenant > 0 and tenantOf(g) then pushRun(); joinRing(g) else run[#run + 1] = g end
  end
  pushRun()
  if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
end
return reply
