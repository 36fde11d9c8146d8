--@include flowKeys
-- A job's place in its flow, for the calls that act on one job by id
-- (delete, delflow, cancel). A flow is unfinished around a job
-- while a parent waits for it or it waits for its children.
-- Does a waiting parent wait for job id, or does it wait itself?
local function flowBlocks(id)
  local v = rcall('HGET', FL.key('up'), id)
  if not v then return false end
  local pid = FL.unpackUp(v)
  if rcall('HEXISTS', FL.key('deps'), id) == 1 then return true end
  return pid ~= nil and pid ~= '0' and rcall('HEXISTS', FL.key('deps'), pid) == 1
end
-- Job id and every job below it not finished (a child listed "" in its
-- parent's k: hash), parents before their children. At most FLOW_MAX jobs
-- (one enqueue_flow call made the flow). Returns ids, id first.
local function flowBelow(id)
  local out, i = { id }, 1
  while i <= #out and #out <= FLOW_MAX do
    local all = rcall('HGETALL', FL.kids(out[i]))
    for j = 1, #all, 2 do if all[j + 1] == '' then out[#out + 1] = all[j] end end
    i = i + 1
  end
  return out
end
-- The unfinished flow of job id: from the topmost parent that still waits
-- (through parents that wait for the job before) down to every job not
-- finished. Returns ids, root first.
local function flowMembers(id)
  local root = id
  for _ = 1, FLOW_MAX do
    local v = rcall('HGET', FL.key('up'), root)
    local pid = v and FL.unpackUp(v)
    if not pid or pid == '0' or rcall('HEXISTS', FL.key('deps'), pid) == 0 then break end
    root = pid
  end
  return flowBelow(root)
end
-- Job id leaves its flow's structures (it is deleted): its link, its place
-- as a waiting parent, its children's outcomes. Returns whether it waited.
local function flowForget(id)
  rcall('HDEL', FL.key('up'), id)
  rcall('DEL', FL.kids(id))
  local waited = rcall('ZREM', FL.key('parents'), id) == 1
  rcall('HDEL', FL.key('deps'), id)
  return waited
end
