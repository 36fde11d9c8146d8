--@include lane
--@include many
--@include typeGuard
--@include finishAcks
--@include okey
--@include life
--@include flowLinks
-- The acks of a settlement (lua/includes/settle.lua: the C.acks.n first
-- entries ids, lane[i] the lane of each accepted one, atts[i] its delivery
-- state), with one write per hash for the whole list and the counts
-- fixed once per lane. An ack reads no record: its lane is in its delivery
-- state. Everything it reads comes before its first write; the keys of its
-- rare paths are type-checked then, unless the caller has (`checked`).
-- C.plain: no limit exists anywhere (takeReads), so none is read.
-- Keys an ack writes or reads after its first write on its rare paths: a
-- lane freed from its ceiling (laneState, joinRing) and a lane left idle
-- (forgetIdleLane). Its common path reads att, leases, gactive, glive and
-- glimit before writing them, and its first write is to stats.
local FREED_KEYS = { 'paused', 'grate', 'gbucket', 'ring', 'wake', 'throttled' }
local IDLE_KEYS = { 'gweight', 'paused', 'grate', 'gcap', 'lanes', 'gserved' }
local NO_LIMITS = {}  -- C.plain: read only
-- The jobs acked (done, their delivery states doneAtt) and the lanes they
-- leave, with the jobs each drops. A tenant's counts fall with its lanes'
-- (gactive[T/], glive[T/]); its entry comes first, so a tenant freed from
-- its limit is fixed before its lanes are (lua/includes/lane.lua, fixRing).
local function ackedLanes(Q, nacks, ids, lane, atts)
  local done, doneAtt, lanes, dropped = {}, {}, {}, {}
  for i = 1, nacks do
    local g = lane[i]
    if g then
      done[#done + 1] = ids[i]
      doneAtt[#done] = atts[i]
      if not dropped[g] then lanes[#lanes + 1] = g; dropped[g] = 0 end
      dropped[g] = dropped[g] + 1
    end
  end
  if not Q.tenants or #done == 0 then return done, doneAtt, lanes, dropped end
  local tenants = {}
  for i = 1, #lanes do
    local te = tenantOf(lanes[i])
    if te then
      if not dropped[te] then tenants[#tenants + 1] = te; dropped[te] = 0 end
      dropped[te] = dropped[te] + dropped[lanes[i]]
    end
  end
  if #tenants == 0 then return done, doneAtt, lanes, dropped end
  for i = 1, #lanes do tenants[#tenants + 1] = lanes[i] end
  return done, doneAtt, tenants, dropped
end
-- The keys the acks' rare paths touch (lanes freed from their ceiling,
-- lanes left idle, outcomes), checked before the first write unless the
-- caller has. Returns a typeGuard reply or nil.
local function need(want, checked, key, name) if not checked[key] then want[key] = KEY_TYPES[name] end end
local function ackGuard(Q, checked, freed, idle, want)
  need(want, checked, K.jobs, 'jobs')  -- the acks read no record
  if Q.outcomes then
    need(want, checked, K.config, 'config')
    for _, name in ipairs(OUTCOME_KEYS) do need(want, checked, okey(name), name) end
  end
  if #freed > 0 then
    for _, name in ipairs(FREED_KEYS) do need(want, checked, K[name], name) end
    for _, g in ipairs(Q.tenants and freed or {}) do if tenantOf(g) or isTenant(g) then laneKeyTypes(g, want) end end
    if Q.cost then need(want, checked, K.gdebt, 'gdebt') end
  end
  if #idle > 0 then for _, name in ipairs(IDLE_KEYS) do need(want, checked, K[name], name) end end
  return typeGuard(want)
end
-- Returns a typeGuard reply when a key the acks would touch holds the wrong
-- type (nothing was written), else nil.
local function ackJobs(Q, C, ids, lane, atts, now, checked)
  local done, doneAtt, lanes, dropped = ackedLanes(Q, C.acks.n, ids, lane, atts)
  if #done == 0 then return nil end
  -- The counts and limits of their lanes, and which lanes go idle or leave
  -- their ceiling: freed, the lane rejoins if it has work, runs and has a
  -- token (or waits for one).
  local act0, live0 = readCounts(K.gactive, lanes), readCounts(K.glive, lanes)
  local lim = C.plain and NO_LIMITS or laneSettings(Q, lanes, false)
  local bursts = Q.burst and Life.burstsOf(lanes) or nil  -- lua/includes/burstRing.lua
  local minus, freed, idle = {}, {}, {}
  for i = 1, #lanes do  -- numeric: lua/includes/base.lua, "Loops"
    local g = lanes[i]
    local dn = dropped[g]
    minus[g] = -dn
    local l, a = lim[g], act0[i]
    if l and a >= l and a - dn < l then freed[#freed + 1] = g end
    if live0[i] - dn <= 0 then idle[#idle + 1] = g end
  end
  -- A flow's links (Q.flows): the parents counted down, read now.
  local want = {}
  local flow = Q.flows and FL.ackPlan(done, want, C.fails.n > 0)
  local bad = ackGuard(Q, checked, freed, idle, want)
  if bad then return bad end
  -- The first write (a flow's, else stats): a wrong type fails it whole.
  if flow then FL.ackFirst(flow, done, C.results, now, doneAtt) end
  rcall('HINCRBY', K.stats, 'acked', #done)
  if Q.outcomes then finishAcks(Q, done, C.results, C.drops, now, doneAtt) end
  callSliced('HDEL', K.jobs, done)
  callSliced('HDEL', K.att, done)
  if Q.timeouts then callSliced('HDEL', Life.key('tmo'), done) end  -- their time limits
  callSliced('ZREM', K.leases, done)
  writeCounts(K.gactive, lanes, act0, minus)
  writeCounts(K.glive, lanes, live0, minus)
  for _, g in ipairs(freed) do if not (bursts and bursts[g]) then placeLane(Q, g) end end
  if bursts then Life.ackBursts(Q, lanes, act0, bursts) end
  for _, g in ipairs(idle) do forgetIdleLane(g) end
  if flow then FL.ackRelease(Q, flow, now) end
  return nil
end
