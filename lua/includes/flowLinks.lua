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
-- job does when due): its turn comes in the ring like any job's.
function FL.release(Q, pid, now)
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
      if counts[pid] - #l <= 0 then FL.release(Q, pid, now)
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
-- flow. `want` gets the keys the plan writes (typeGuard).
function FL.ackPlan(done, want)
  local ups = callSliced('HMGET', FL.key('up'), done)
  local plan = { links = {}, linked = {}, kids = {}, counts = {} }
  local pids, seen = {}, {}
  for i = 1, #done do
    local v = ups[i]
    if v then
      local pid, _, kids = FL.unpackUp(v)
      plan.linked[#plan.linked + 1] = done[i]
      if kids then plan.kids[#plan.kids + 1] = FL.kids(done[i]) end
      if pid and pid ~= '0' then
        plan.links[#plan.links + 1] = { done[i], pid, i }
        if not seen[pid] then seen[pid] = 0; pids[#pids + 1] = pid end
        seen[pid] = seen[pid] + 1
      end
    end
  end
  if #plan.linked == 0 then return nil end
  for _, name in ipairs(FL.KEYS) do want[FL.key(name)] = KEY_TYPES[name] end
  if #pids == 0 then return plan end
  local c, going = callSliced('HMGET', FL.key('deps'), pids), {}
  for i = 1, #pids do
    plan.counts[pids[i]] = c[i] and c[i] + 0
    want[FL.kids(pids[i])] = 'hash'
    if c[i] and c[i] - seen[pids[i]] <= 0 then going[#going + 1] = pids[i] end
  end
  if #going > 0 then
    for _, name in ipairs({ 'ring', 'wake', 'throttled', 'paused', 'glimit', 'gactive', 'grate', 'gbucket' }) do
      want[K[name]] = KEY_TYPES[name]
    end
    for _, rec in ipairs(callSliced('HMGET', K.jobs, going)) do
      if rec then laneKeyTypes((unpackRecord(rec)), want) end
    end
  end
  return plan
end
-- After the acks' writes: the plan's links resolved, each child's outcome
-- (its result, results[id]) written to its parent, which joins its lane
-- when it was the last; an acked parent's children's outcomes freed.
function FL.ackApply(Q, plan, results, now, atts)
  callSliced('HDEL', FL.key('up'), plan.linked)
  for _, key in ipairs(plan.kids) do rcall('DEL', key) end
  local links = {}
  for k, l in ipairs(plan.links) do
    local att, err = unpackAtt(atts[l[3]])
    links[k] = { l[1], l[2], FL.outcome('c', now, att, err, results[l[1]]) }
  end
  FL.childrenDone(Q, links, now, plan.counts)
end
