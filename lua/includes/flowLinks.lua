--@include lane
--@include record
--@include many
--@include emit
--@include deadOutcome
--@include flowKeys
-- Where a flow's links move (docs/architecture.md, "Flows"): a child that
-- finishes counts down its parent, which joins its lane when the count
-- reaches 0; a child that dies does what its link's policy says. Runs only
-- while the queue's `flows` flag is on (Q.flows).
-- Parent pid, waiting, joins its lane at its mint position (as a delayed
-- job does when due): its turn comes in the ring like any job's. An ack
-- lets it go at once, after its own writes (FL.ackRelease); a death lets it
-- go through the delayed set, due now (`later`): the death happens inside a
-- change to a lane (the dying job's) whose ring place its caller fixes
-- after, so the parent joins by the next recovery instead of changing a
-- lane's ring place under that change (the same lane twice in the ring).
function FL.release(Q, pid, now, later)
  if later then
    rcall('ZREM', FL.key('parents'), pid)
    rcall('HDEL', FL.key('deps'), pid)
    rcall('ZADD', K.delayed, S(now), pid)
    -- A sleeping claimer wakes for it (it slept until the due times it knew).
    if rcall('LLEN', K.wake) == 0 then rcall('RPUSH', K.wake, '1') end
    emit(Q, 'ready', pid, '', 0)
    return
  end
  rcall('ZREM', FL.key('parents'), pid)
  rcall('HDEL', FL.key('deps'), pid)
  local rec = rcall('HGET', K.jobs, pid)
  if not rec then return end
  local g = unpackRecord(rec)
  local before = laneState(g)
  rcall('ZADD', pendingKey(g), pid, pid)
  fixRing(Q, g, before)
  emit(Q, 'ready', pid, g, 0)
end
-- Finished children, as {child id, parent id, outcome (nil: left out)}
-- links: each is written into its parent's k: hash and counts the parent
-- down; a parent no longer waiting (it died of another child) is passed
-- over. Parents whose count reaches 0 join their lanes. `counts`: the
-- parents' deps counts when the caller read them (parent id -> number).
function FL.childrenDone(Q, links, now, counts)
  if #links == 0 then return end
  local pids, per = {}, {}
  for i = 1, #links do
    local pid = links[i][2]
    if not per[pid] then per[pid] = {}; pids[#pids + 1] = pid end
    local l = per[pid]
    l[#l + 1] = links[i]
  end
  if not counts then
    counts = {}
    local c = callSliced('HMGET', FL.key('deps'), pids)
    for i = 1, #pids do counts[pids[i]] = c[i] and c[i] + 0 end
  end
  for _, pid in ipairs(pids) do
    if counts[pid] then
      local set, del, l = {}, {}, per[pid]
      for i = 1, #l do
        if l[i][3] then set[#set + 1] = l[i][1]; set[#set + 1] = l[i][3] else del[#del + 1] = l[i][1] end
      end
      if #set > 0 then callSliced('HSET', FL.kids(pid), set) end
      if #del > 0 then callSliced('HDEL', FL.kids(pid), del) end
      if counts[pid] - #l <= 0 then FL.release(Q, pid, now, true)
      else rcall('HINCRBY', FL.key('deps'), pid, -#l) end
    end
  end
end
-- Parent pid, waiting, dies of a child's death (policy FLOW_FAIL): to the
-- dead letters with `reason` as its last error, and on up its own link.
function FL.parentDies(Q, pid, now, reason)
  rcall('ZREM', FL.key('parents'), pid)
  rcall('HDEL', FL.key('deps'), pid)
  local rec = rcall('HGET', K.jobs, pid)
  if not rec then return end
  local g = unpackRecord(rec)
  rcall('HSET', K.att, pid, packAtt(0, 0, g, reason))
  rcall('ZADD', K.dead, S(now), pid)
  rcall('HINCRBY', K.stats, 'dead', 1)
  addLive(Q, g, -1)
  if Q.outcomes then deadOutcome(Q, pid, g, 0, 0, now, reason) end
  FL.childGone(Q, pid, now, 0, reason)
end
-- Job id of a flow died (dead-lettered, or removed by a purge: `reason`
-- says which) after `att` attempts: its own children's outcomes go (its
-- settlement), and its parent, if one waits, does what the link says.
function FL.childGone(Q, id, now, att, reason)
  local v = rcall('HGET', FL.key('up'), id)
  if not v then return end
  rcall('HDEL', FL.key('up'), id)
  local pid, policy, kids = FL.unpackUp(v)
  if kids then rcall('DEL', FL.kids(id)) end
  if not pid or pid == '0' then return end
  if policy == FLOW_FAIL then
    if rcall('HEXISTS', FL.key('deps'), pid) == 1 then
      FL.parentDies(Q, pid, now, 'child ' .. id .. ' failed: ' .. (reason or ''))
    end
    return
  end
  local out = policy == FLOW_CONTINUE and FL.outcome('d', now, att, reason, '') or nil
  FL.childrenDone(Q, { { id, pid, out } }, now)
end
-- Before an ack call's first write: of the jobs acked (`done`), the links
-- (up entries), the parents they count down (deps) and the lanes of those
-- that will join them. Returns the plan, or nil when none of them is in a
-- flow. `want` gets the keys the plan writes that nothing checks before
-- (typeGuard): up and deps are read here (a wrong type fails the call
-- before its first write); the first parent's k: hash is the call's first
-- write (FL.ackFirst) unless fails came before (`fails`), which fails it
-- whole; the other parents' k: hashes and, for a parent that goes, its
-- place and lane are checked.
function FL.ackPlan(done, want, fails)
  local ups = callSliced('HMGET', FL.key('up'), done)
  local plan = { linked = {}, kids = {}, pids = {}, per = {}, going = {}, goes = {} }
  local pids, per = plan.pids, plan.per
  for i = 1, #done do
    local v = ups[i]
    if v then
      local pid, kids = string.match(v, '^(%d+) %d ([01])$')
      plan.linked[#plan.linked + 1] = done[i]
      if kids == '1' then plan.kids[#plan.kids + 1] = FL.kids(done[i]) end
      if pid and pid ~= '0' then
        local l = per[pid]
        if not l then l = {}; per[pid] = l; pids[#pids + 1] = pid end
        l[#l + 1] = i
      end
    end
  end
  if #plan.linked == 0 then return nil end
  if #pids == 0 then return plan end
  local c, going = callSliced('HMGET', FL.key('deps'), pids), plan.going
  for i = 1, #pids do
    local pid = pids[i]
    if not c[i] then per[pid] = nil  -- its parent died of another child
    elseif c[i] - #per[pid] <= 0 then going[#going + 1] = pid; plan.goes[pid] = true end
    if c[i] and (i > 1 or fails) then want[FL.kids(pid)] = 'hash' end
  end
  if #going > 0 then
    want[FL.key('parents')] = 'zset'
    for _, name in ipairs({ 'ring', 'wake', 'throttled', 'paused', 'glimit', 'gactive', 'grate', 'gbucket' }) do
      want[K[name]] = KEY_TYPES[name]
    end
    for _, rec in ipairs(callSliced('HMGET', K.jobs, going)) do
      if rec then laneKeyTypes((unpackRecord(rec)), want) end
    end
  end
  return plan
end
-- The plan's first writes (the first of them may be the call's first): each
-- child's outcome (completed, its attempts and result, results[id]) to its
-- parent's k: hash, the parents counted down (those that go: FL.ackRelease),
-- the links resolved, an acked parent's children's outcomes freed.
function FL.ackFirst(plan, done, results, now, atts)
  local head = 'c ' .. S(now) .. ' '
  for _, pid in ipairs(plan.pids) do
    local l = plan.per[pid]
    if l then
      local set = {}
      for k = 1, #l do
        local id = done[l[k]]
        local att = atts[l[k]]
        set[k + k - 1] = id
        set[k + k] = head .. (att and string.match(att, '^%d+ (%d+)') or '0') .. ' 0 ' .. (results[id] or '')
      end
      callSliced('HSET', FL.kids(pid), set)
      if not plan.goes[pid] then rcall('HINCRBY', FL.key('deps'), pid, -#l) end
    end
  end
  callSliced('HDEL', FL.key('up'), plan.linked)
  for _, key in ipairs(plan.kids) do rcall('DEL', key) end
end
-- After the acks' writes: the parents whose last child this call acked join
-- their lanes.
function FL.ackRelease(Q, plan, now)
  for _, pid in ipairs(plan.going) do FL.release(Q, pid, now) end
end
