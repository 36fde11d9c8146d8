--@include args
--@include flowKeys
-- The arguments of enqueue_flow (lua/args.txt, `flow`; what they hold:
-- lua/flow.lua), checked before any read: the bound, each row's parent (an
-- index of the call, not itself) and policy, no cycle. Returns F, the
-- call: maxatt, n, parent[i] (0 = a root), policy[i], groups, payloads,
-- kids[i] (children of row i); or nil and {EINVAL or ETOOLARGE, msg}.
local function flowCall()
  local A, bad = readArgs()
  if not A then return nil, bad end
  local maxatt, jobs = argInt(A.max_attempts, 0, ATTEMPTS_MAX), A.jobs
  local n = jobs.n
  if not maxatt or n < 1 then return nil, { EINVAL, 'flow: bad max attempts or count' } end
  if n > FLOW_MAX then
    return nil, { ETOOLARGE, 'flow: ' .. n .. ' jobs, over the bound of ' .. FLOW_MAX .. ' a call (nothing was enqueued)' }
  end
  local parent, policy, kids = {}, {}, {}
  for i = 1, n do
    local p, pol = argInt(jobs.parent[i], 0, n), argInt(jobs.policy[i], FLOW_FAIL, FLOW_CONTINUE)
    if not p or p == i or not pol then return nil, { EINVAL, 'flow: job ' .. i .. ' has a bad parent or policy' } end
    if #jobs.group[i] == 0 then return nil, { EINVAL, 'flow: empty group name' } end
    parent[i], policy[i] = p, pol
    if p > 0 then kids[p] = (kids[p] or 0) + 1 end
  end
  -- No cycle: walk up from each row; a walk that meets its own path loops.
  local state = {}
  for i = 1, n do
    local path, j = {}, i
    while j ~= 0 and not state[j] do state[j] = 1; path[#path + 1] = j; j = parent[j] end
    if j ~= 0 and state[j] == 1 then
      return nil, { EINVAL, 'flow: job ' .. j .. ' waits for itself (a cycle; nothing was enqueued)' }
    end
    for _, k in ipairs(path) do state[k] = 2 end
  end
  return { delay = 0, maxatt = maxatt, n = n, parent = parent, policy = policy, kids = kids,
           groups = jobs.group, payloads = jobs.payload }
end
