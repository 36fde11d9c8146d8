--@include lane
--@include record
--@include counts
--@include attcheck
--@include schedCheck
-- One bounded step of a repair: rebuilds what the scripts keep beside the
-- jobs (ring, gactive, glive, the lane directory, throttled, the counters)
-- from where the jobs really are (lane pending sets, leases, delayed, dead,
-- the jobs and att hashes), and first puts each job in exactly one place
-- (I3). Every change is one line of the reply; with apply false nothing is
-- written (lua/repairplan.lua runs this read-only), with apply true each
-- change is made as it is reported (lua/repair.lua). Every fix is idempotent:
-- a second repair reports nothing.
--
-- The walk, in phases, `budget` items per call at most (a lane's pending
-- set is read whole when its lane is visited):
--   L leases, D delayed, X dead (by rank): ids without a record leave; a job
--     found in two places keeps the first of leases, its lane, delayed, dead;
--     leased and delayed jobs are counted per lane (the tally);
--   F finished (by rank): an id with a record (a live or dead job) or
--     without an outcome in fin leaves the finished sets;
--   E doneexp, K donecnt (by rank): ids that are not finished leave;
--   H fin (HSCAN): the outcome of a job neither finished nor dead goes;
--   J jobs (HSCAN): a record in no place goes back to its lane;
--   A att (HSCAN): the delivery state of no job goes; one that names
--     another lane than its record gets the record's;
--   Q lane pending sets (SCAN): ids without a record or of another lane
--     leave (the latter to their own lane);
--   P lane pending sets (SCAN): each lane is mended, its jobs counted
--     (and a tenant's inner ring met with no lane of it listed is mended);
--   T, V, C, R, I: the lanes of the tally, glive, gactive, the directory
--     and the ring that phase P did not visit (each lane once) are mended,
--     and the tenant entries in the ring;
--   O, U, W: the tenants (after all their lanes) of the directory, gactive
--     and glive: sums, directory entry, inner ring, place in the ring;
--   G: the schedules (lua/includes/schedCheck.lua), in one step;
--   S: the counters are set against the pending jobs counted in phase P.
-- The cursor carries the phase, its position, the pending jobs counted and
-- the tally (groups in hex: group names are binary). Across calls the queue
-- should be quiet (workers stopped): the tally is only exact when no job
-- moves between the calls. One call that finishes the walk is atomic.
-- Returns {OK, next cursor ('' = done), change...}.
local PHASES = 'LDXFEKHJAQPTVCRIOUWGS'
local function repairStep(apply, cursor, budget)
  local out = { OK, '' }
  local function say(msg) out[#out + 1] = msg end
  local function hex(s)
    return (string.gsub(s, '.', function(ch) return string.format('%02x', string.byte(ch)) end))
  end
  local function unhex(h)
    return (string.gsub(h, '%x%x', function(x) return string.char(tonumber(x, 16)) end))
  end
  -- The cursor: "<phase> <position> <pending counted> <hex group>:<leased>:<delayed> ..."
  local phase, pos, total, rest = 'L', '0', 0, ''
  local tally = {}
  if cursor ~= '' then
    local ph, p, t, r = string.match(cursor, '^(%u) (%d+) (%d+) ?(.*)$')
    if not ph or not string.find(PHASES, ph, 1, true) then return { EINVAL, 'repair: bad cursor' } end
    phase, pos, total, rest = ph, p, tonumber(t), r
    for hg, l, d in string.gmatch(rest, '(%x+):(%d+):(%d+)') do
      tally[unhex(hg)] = { tonumber(l), tonumber(d) }
    end
  end
  local function count(g, i)
    if not tally[g] then tally[g] = { 0, 0 } end
    tally[g][i] = tally[g][i] + 1
  end
  local function w(...) if apply then rcall(...) end end
  local function inZ(key, id) return rcall('ZSCORE', key, id) ~= false end

  local mendPlace
  -- The counts of g (a lane, or a tenant entry: `what`) set to what was
  -- found, and its directory entry to its live jobs and settings.
  local function mendCounts(what, g, leased, live, liveWhy)
    local act = tonumber(rcall('HGET', K.gactive, g) or '0')
    if act ~= leased then
      local why = act < 0 and ' (a hidden underflow)' or ''
      say('gactive: ' .. what .. ' ' .. g .. ' ' .. act .. why .. ' -> ' .. leased .. ' (jobs leased)')
      if leased == 0 then w('HDEL', K.gactive, g) else w('HSET', K.gactive, g, S(leased)) end
    end
    local had = tonumber(rcall('HGET', K.glive, g) or '0')
    if had ~= live then
      say('glive: ' .. what .. ' ' .. g .. ' ' .. had .. ' -> ' .. live .. ' (' .. liveWhy .. ')')
      if live == 0 then w('HDEL', K.glive, g) else w('HSET', K.glive, g, S(live)) end
    end
    local listed = rcall('ZSCORE', K.lanes, g) ~= false
    if live > 0 and not listed then
      say('lanes: ' .. what .. ' ' .. g .. ' listed (' .. live .. ' live jobs, not in the directory)')
      w('ZADD', K.lanes, 0, g)
    elseif live == 0 and listed and not hasSetting(g) then
      say('lanes: ' .. what .. ' ' .. g .. ' dropped (no live job, no setting)')
      if apply then forgetIdleLane(g) end
    end
  end
  -- Lane g made consistent with its jobs: active and live counts, the
  -- directory, its ring entry and its schedule in throttled.
  local function mendLane(g)
    local t = tally[g] or { 0, 0 }
    local leased, delayed = t[1], t[2]
    local depth = rcall('ZCARD', pendingKey(g))
    mendCounts('lane', g, leased, depth + leased + delayed,
      depth .. ' pending, ' .. leased .. ' leased, ' .. delayed .. ' delayed')
    local st, due = laneState(g, leased)
    local te = tenantOf(g)
    if te then
      -- A lane of a tenant rotates in its tenant's inner ring only.
      local o = #rcall('LPOS', K.ring, g, 'COUNT', 0)
      if o > 0 then
        say('ring: lane ' .. g .. ' of tenant ' .. te .. ' removed from the outer ring')
        w('LREM', K.ring, 0, g)
      end
      if rcall('ZSCORE', K.gdebt, g) then
        say('gdebt: lane ' .. g .. ' of tenant ' .. te .. ' no longer sits out (its tenant does)')
        w('ZREM', K.gdebt, g)
      end
    end
    mendPlace(g, st, due, te and innerKey(te) or K.ring, depth .. ' pending')
  end
  -- Entry g (a lane, or a tenant entry) in its ring (`ring`: the outer
  -- ring, or its tenant's inner ring) exactly as its state `st` says, or
  -- scheduled in throttled; in cost mode an outer entry may sit in gdebt.
  function mendPlace(g, st, due, ring, why)
    local n = #rcall('LPOS', ring, g, 'COUNT', 0)
    local waits = rcall('ZSCORE', K.throttled, g) ~= false
    -- An entry in gdebt sits out by design in cost mode (lua/includes/cost.lua);
    -- out of cost mode it goes back (joinRing takes it out of gdebt).
    local sits = ring == K.ring and rcall('ZSCORE', K.gdebt, g) ~= false
    if sits and (n > 0 or not COST_Q) then
      say('gdebt: lane ' .. g .. (n > 0 and ' is in the ring' or ' sits out, but cost mode is off') .. ', no longer sits out')
      w('ZREM', K.gdebt, g)
      sits = false
    end
    if st == 'ring' then
      if n == 0 and not waits and not sits then
        say('ring: lane ' .. g .. ' added (' .. why .. ', not in the ring)')
        if apply then joinRing(g) end
      elseif n > 1 then
        say('ring: lane ' .. g .. ' was in the ring ' .. n .. ' times, now once')
        w('LREM', ring, -(n - 1), g)
      end
      if n > 0 and waits then
        say('throttled: lane ' .. g .. ' is in the ring, no longer scheduled to rejoin')
        w('ZREM', K.throttled, g)
      end
    else
      if n > 0 then
        say('ring: lane ' .. g .. ' removed (' .. why .. ', not serviceable)')
        w('LREM', ring, 0, g)
      end
      if st == 'wait' and not waits then
        say('throttled: lane ' .. g .. ' scheduled to rejoin at ' .. S(due))
        w('ZADD', K.throttled, S(due), g)
      end
    end
  end
  -- Tenant entry te made consistent with its lanes (mended before it): its
  -- aggregates gactive[te] and glive[te], its directory entry, its inner
  -- ring (only its own serviceable lanes, each once) and its place in the
  -- outer ring. Its lanes are the directory's names after te up to T0
  -- ('0' follows '/'): every lane with a live job is listed by then.
  local mendedT = {}
  local function mendTenant(te)
    if mendedT[te] then return 0 end
    mendedT[te] = true
    local names = rcall('ZRANGEBYLEX', K.lanes, '(' .. te, '(' .. string.sub(te, 1, -2) .. '0')
    local leased, live = 0, 0
    for _, g in ipairs(names) do
      leased = leased + (tonumber(rcall('HGET', K.gactive, g) or '0') or 0)
      live = live + (tonumber(rcall('HGET', K.glive, g) or '0') or 0)
    end
    mendCounts('tenant', te, leased, live, 'live jobs in its lanes')
    local key, seen = innerKey(te), {}
    for _, g in ipairs(rcall('LRANGE', key, 0, -1)) do
      local why
      if tenantOf(g) ~= te then why = 'not a lane of ' .. te
      elseif seen[g] then why = 'there twice'
      elseif laneState(g) ~= 'ring' then why = 'not serviceable' end
      if why then
        say('ring: lane ' .. g .. ' removed from the inner ring of tenant ' .. te .. ' (' .. why .. ')')
        w('LREM', key, seen[g] and -1 or 0, g)
      end
      seen[g] = true
    end
    local st, due = laneState(te, leased)
    mendPlace(te, st, due, K.ring, 'tenant with ' .. rcall('LLEN', key) .. ' lanes in its ring')
    return #names + 1
  end
  -- Lanes are mended once: by the first phase that meets them.
  local function metBefore(g, ph)
    local at = string.find(PHASES, ph, 1, true)
    local function before(q) return string.find(PHASES, q, 1, true) < at end
    if rcall('EXISTS', pendingKey(g)) == 1 then return true end
    if before('T') and tally[g] then return true end
    if before('V') and rcall('HEXISTS', K.glive, g) == 1 then return true end
    if before('C') and rcall('HEXISTS', K.gactive, g) == 1 then return true end
    if before('R') and rcall('ZSCORE', K.lanes, g) then return true end
    return false
  end

  -- One chunk of a place scored by job id (leases, delayed, dead): `other`
  -- lists the places that come first for a job found in two.
  local function walkPlace(key, name, slot, earlier)
    local from = tonumber(pos)
    local ids = rcall('ZRANGE', key, from, from + budget - 1)
    local recs = #ids > 0 and callSliced('HMGET', K.jobs, ids) or {}
    local gone = 0
    for i, id in ipairs(ids) do
      if id == ZSET_MARK then  -- no job (lua/includes/base.lua)
      elseif not recs[i] then
        say('I3: ' .. name .. ' holds job ' .. id .. ' whose record is missing: removed')
        w('ZREM', key, id)
        gone = gone + 1
      else
        local g = unpackRecord(recs[i])
        local first
        for _, e in ipairs(earlier) do
          local k = e == 'lane' and pendingKey(g) or K[e]
          if inZ(k, id) then first = e == 'lane' and ('lane ' .. g) or e; break end
        end
        if first then
          say('I3: job ' .. id .. ' is in ' .. first .. ' and in ' .. name .. ': removed from ' .. name)
          w('ZREM', key, id)
          gone = gone + 1
        else
          if slot then count(g, slot) end
          if slot == 1 and inZ(pendingKey(g), id) then
            say('I3: job ' .. id .. ' is in leases and in lane ' .. g .. ': removed from lane ' .. g)
            w('ZREM', pendingKey(g), id)
          end
        end
      end
    end
    if #ids < budget then return nil, #ids end
    return S(from + #ids - (apply and gone or 0)), #ids
  end

  local steps = {}
  steps.L = function() return walkPlace(K.leases, 'leases', 1, {}) end
  -- (A leased job also in its lane leaves the lane: see walkPlace.)
  steps.D = function() return walkPlace(K.delayed, 'delayed', 2, { 'leases', 'lane' }) end
  steps.X = function() return walkPlace(K.dead, 'dead', nil, { 'leases', 'lane', 'delayed' }) end
  steps.F = function()
    local from = tonumber(pos)
    local ids = rcall('ZRANGE', K.done, from, from + budget - 1)
    local gone = 0
    for _, id in ipairs(ids) do
      local why
      if rcall('HEXISTS', K.jobs, id) == 1 then why = 'is a job that lives or died'
      elseif rcall('HEXISTS', K.fin, id) == 0 then why = 'has no outcome' end
      if why then
        say('I3: finished holds job ' .. id .. ' that ' .. why .. ': removed')
        for _, k in ipairs({ K.done, K.doneexp, K.donecnt }) do w('ZREM', k, id) end
        gone = gone + 1
      end
    end
    if #ids < budget then return nil, #ids end
    return S(from + #ids - (apply and gone or 0)), #ids
  end
  local function walkExpiry(key)
    local from = tonumber(pos)
    local ids = rcall('ZRANGE', key, from, from + budget - 1)
    local gone = 0
    for _, id in ipairs(ids) do
      if not inZ(K.done, id) then
        say('finished: ' .. key .. ' holds job ' .. id .. ' that is not finished: removed')
        w('ZREM', key, id)
        gone = gone + 1
      end
    end
    if #ids < budget then return nil, #ids end
    return S(from + #ids - (apply and gone or 0)), #ids
  end
  steps.E = function() return walkExpiry(K.doneexp) end
  steps.K = function() return walkExpiry(K.donecnt) end
  steps.H = function()
    local r = rcall('HSCAN', K.fin, pos, 'COUNT', budget)
    local f = r[2]
    for i = 1, #f, 2 do
      local id = f[i]
      if not inZ(K.done, id) and not inZ(K.dead, id) then
        say('I3: fin holds job ' .. id .. ' that is neither finished nor dead: removed')
        w('HDEL', K.fin, id)
      end
    end
    return r[1] ~= '0' and r[1] or nil, #f / 2
  end
  steps.J = function()
    local r = rcall('HSCAN', K.jobs, pos, 'COUNT', budget)
    local f = r[2]
    for i = 1, #f, 2 do
      local id = f[i]
      local g = unpackRecord(f[i + 1])
      if not (inZ(K.leases, id) or inZ(pendingKey(g), id) or inZ(K.delayed, id) or inZ(K.dead, id)) then
        say('I3: job ' .. id .. ' is in no place: back in lane ' .. g)
        w('ZADD', pendingKey(g), id, id)
      end
    end
    return r[1] ~= '0' and r[1] or nil, #f / 2
  end
  steps.A = function()
    local r = rcall('HSCAN', K.att, pos, 'COUNT', budget)
    local f = r[2]
    for i = 1, #f, 2 do
      local problem, g, ag = attProblem(f[i], f[i + 1])
      if problem == 'orphan' then
        say('I3: att holds job ' .. f[i] .. ' that does not exist: removed')
        w('HDEL', K.att, f[i])
      elseif problem == 'lane' then
        local att, err, token = unpackAtt(f[i + 1])
        say('att: job ' .. f[i] .. ' names lane ' .. tostring(ag) .. ', its record ' .. g .. ': set to ' .. g)
        w('HSET', K.att, f[i], packAtt(token, att, g, err))
      end
    end
    return r[1] ~= '0' and r[1] or nil, #f / 2
  end
  -- Q: each lane's pending set holds only jobs of its own (read whole).
  steps.Q = function()
    local r = rcall('SCAN', pos, 'MATCH', globEscape(P) .. 'g:*:pending', 'COUNT', budget)
    local work = 0
    for _, key in ipairs(r[2]) do
      local g = string.sub(key, #P + 3, #key - 8)
      local ids = rcall('ZRANGE', key, 0, -1)
      local recs = callSliced('HMGET', K.jobs, ids)
      for i, id in ipairs(ids) do
        if not recs[i] then
          say('I3: lane ' .. g .. ' holds job ' .. id .. ' whose record is missing: removed')
          w('ZREM', key, id)
        else
          local jg = unpackRecord(recs[i])
          if jg ~= g then
            local placed = inZ(K.leases, id) or inZ(K.delayed, id) or inZ(K.dead, id)
              or inZ(pendingKey(jg), id)
            say('I3: job ' .. id .. ' of lane ' .. jg .. ' sits in lane ' .. g .. ': ' ..
              (placed and 'removed' or 'moved to its lane'))
            w('ZREM', key, id)
            if not placed then w('ZADD', pendingKey(jg), id, id) end
          end
        end
      end
      work = work + 1 + #ids
    end
    return r[1] ~= '0' and r[1] or nil, work
  end
  -- P: every lane with pending jobs is mended; its jobs are counted.
  -- The same walk meets the tenants' inner rings: one of a tenant with no
  -- lane listed is mended here (no later phase meets it); the others after
  -- all their lanes (phase O).
  steps.P = function()
    local r = rcall('SCAN', pos, 'MATCH', globEscape(P) .. '[gt]:*', 'COUNT', budget)
    local work = 0
    for _, key in ipairs(r[2]) do
      local kind = string.sub(key, #P + 1, #P + 2)
      if kind == 'g:' and string.sub(key, -8) == ':pending' then
        total = total + rcall('ZCARD', key)
        mendLane(string.sub(key, #P + 3, #key - 8))
        work = work + 1
      elseif kind == 't:' and string.sub(key, -5) == ':ring' then
        local te = string.sub(key, #P + 3, #key - 5) .. '/'
        if not isTenant(te) then
          say('ring: ' .. key .. ' is the inner ring of no tenant: removed')
          w('DEL', key)
        elseif #rcall('ZRANGEBYLEX', K.lanes, '(' .. te, '(' .. string.sub(te, 1, -2) .. '0', 'LIMIT', 0, 1) == 0 then
          work = work + mendTenant(te)
        end
      end
    end
    return r[1] ~= '0' and r[1] or nil, math.max(work, #r[2])
  end
  steps.T = function()
    local names = {}
    for g in pairs(tally) do names[#names + 1] = g end
    table.sort(names)
    for _, g in ipairs(names) do
      if not metBefore(g, 'T') then mendLane(g) end
    end
    return nil, #names
  end
  local function walkFields(key, ph)
    local r = rcall('HSCAN', key, pos, 'COUNT', budget)
    local f = r[2]
    for i = 1, #f, 2 do
      if f[i] ~= COUNTERS_MARK and not isTenant(f[i]) and not metBefore(f[i], ph) then mendLane(f[i]) end
    end
    return r[1] ~= '0' and r[1] or nil, #f / 2
  end
  steps.V = function() return walkFields(K.glive, 'V') end
  steps.C = function() return walkFields(K.gactive, 'C') end
  steps.R = function()
    local from = tonumber(pos)
    local names = rcall('ZRANGE', K.lanes, from, from + budget - 1)
    local size = rcall('ZCARD', K.lanes)
    for _, g in ipairs(names) do
      if not isTenant(g) and not metBefore(g, 'R') then mendLane(g) end
    end
    if #names < budget then return nil, #names end
    -- Entries dropped may lie before the next position: step back by them
    -- (a lane met twice is mended once; the second time changes nothing).
    return S(math.max(from, from + #names - (size - rcall('ZCARD', K.lanes)))), #names
  end
  steps.I = function()
    local from = tonumber(pos)
    local names = rcall('LRANGE', K.ring, from, from + budget - 1)
    local size, seen = rcall('LLEN', K.ring), {}
    for i, g in ipairs(names) do
      -- A lane is met at its first ring entry only (a dry run writes
      -- nothing, so positions hold; applied, mending again changes nothing).
      local first = apply and not seen[g] or (not apply and rcall('LPOS', K.ring, g) == from + i - 1)
      seen[g] = true
      if first and isTenant(g) then mendTenant(g)
      elseif first and not metBefore(g, 'I') then mendLane(g) end
    end
    if #names < budget then return nil, #names end
    return S(math.max(from, from + #names - (size - rcall('LLEN', K.ring)))), #names
  end
  -- O, U, W: the tenants, after all their lanes: those in the directory (by
  -- a lane or their entry), in gactive, in glive (and in the ring: phase I).
  steps.O = function()
    local from = tonumber(pos)
    local names = rcall('ZRANGE', K.lanes, from, from + budget - 1)
    local size, work = rcall('ZCARD', K.lanes), 0
    for _, g in ipairs(names) do
      local te = isTenant(g) and g or tenantOf(g)
      if te then work = work + mendTenant(te) end
    end
    if #names < budget then return nil, math.max(work, #names) end
    return S(math.max(from, from + #names - (size - rcall('ZCARD', K.lanes)))), math.max(work, #names)
  end
  local function walkTenants(key)
    local r = rcall('HSCAN', key, pos, 'COUNT', budget)
    local f, work = r[2], 0
    for i = 1, #f, 2 do if isTenant(f[i]) then work = work + mendTenant(f[i]) end end
    return r[1] ~= '0' and r[1] or nil, math.max(work, #f / 2)
  end
  steps.U = function() return walkTenants(K.gactive) end
  steps.W = function() return walkTenants(K.glive) end
  steps.G = function() mendSchedules(say, w); return nil, 1 end
  steps.S = function()
    local pc = pendingCount()
    if pc > total then
      say('stats: acked +' .. S(pc - total) .. ' (the counters gave ' .. S(pc) .. ' pending jobs, ' ..
        S(total) .. ' are pending)')
      w('HINCRBY', K.stats, 'acked', S(pc - total))
    elseif pc < total then
      say('stats: enqueued +' .. S(total - pc) .. ' (the counters gave ' .. S(pc) .. ' pending jobs, ' ..
        S(total) .. ' are pending)')
      w('HINCRBY', K.stats, 'enqueued', S(total - pc))
    end
    return nil, 1
  end

  local work = 0
  while work < budget do
    local nextPos, did = steps[phase]()
    work = work + math.max(did, 1)
    if nextPos then
      pos = nextPos
    else
      local at = string.find(PHASES, phase, 1, true)
      if at == #PHASES then return out end  -- done: the cursor stays ''
      phase, pos = string.sub(PHASES, at + 1, at + 1), '0'
    end
  end
  local parts = { phase .. ' ' .. pos .. ' ' .. S(total) }
  for g, t in pairs(tally) do parts[#parts + 1] = hex(g) .. ':' .. t[1] .. ':' .. t[2] end
  out[2] = table.concat(parts, ' ')
  return out
end
