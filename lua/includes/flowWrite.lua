--@include many
--@include flowKeys
-- The links of a flow just enqueued (lua/flow.lua), after its jobs are
-- written with ids first..first+n-1 in row order: each parent waits in
-- `parents` with its children counted in `deps` and listed ("" = not
-- finished) in its k: hash; every job with a parent or children gets its
-- `up` entry. Sets the queue's `flows` flag (Q.flows): from now on its
-- settlements look for links.
local function writeLinks(Q, F, first)
  local function id(i) return S(first + i - 1) end
  local waiting, counts, ups, kids = {}, {}, {}, {}
  for i = 1, F.n do
    local p, k = F.parent[i], F.kids[i]
    if k then
      waiting[#waiting + 1] = id(i); waiting[#waiting + 1] = id(i)
      counts[#counts + 1] = id(i); counts[#counts + 1] = k
    end
    if p > 0 then
      local l = kids[p]
      if not l then l = {}; kids[p] = l end
      l[#l + 1] = id(i); l[#l + 1] = ''
    end
    if k or p > 0 then
      ups[#ups + 1] = id(i); ups[#ups + 1] = FL.packUp(p > 0 and id(p) or '0', F.policy[i], k)
    end
  end
  if #waiting > 0 then
    callSliced('ZADD', FL.key('parents'), waiting)
    callSliced('HSET', FL.key('deps'), counts)
    for p, l in pairs(kids) do callSliced('HSET', FL.kids(id(p)), l) end
  end
  if #ups > 0 then callSliced('HSET', FL.key('up'), ups) end
  if not Q.flows then Q.flows = '1'; rcall('HSET', K.config, 'flows', '1') end
end
