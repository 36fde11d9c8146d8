--@include flowKeys
-- The flows' part of lua/verify.lua (docs/architecture.md, "Flows"): each
-- waiting parent (in `parents`, checked for I3 with the other places) has
-- its count in deps equal to its children listed not finished that exist,
-- each count is of a waiting parent, and each link (up) is of a job that
-- exists. seen.place: where verifyJobs found each job.
local function verifyFlows(seen, report)
  local place = seen.place
  for _, pid in ipairs(rcall('ZRANGE', K.parents, 0, -1)) do
    local all, n = rcall('HGETALL', FL.kids(pid)), 0
    for i = 1, #all, 2 do
      if all[i + 1] == '' then
        if place[all[i]] then n = n + 1
        else report('flows: parent ' .. pid .. ' waits for child ' .. all[i] .. ' that is in no place') end
      end
    end
    local had = tonumber(rcall('HGET', K.deps, pid) or '-1')
    if had ~= n then report('flows: deps[' .. pid .. '] = ' .. S(had) .. ' but ' .. S(n) .. ' children are not finished') end
    if n == 0 then report('flows: parent ' .. pid .. ' waits though no child of it is unfinished') end
  end
  local deps = rcall('HKEYS', K.deps)
  for _, id in ipairs(deps) do
    if place[id] ~= 'parents' then report('flows: deps counts job ' .. id .. ' that does not wait for children') end
  end
  for _, id in ipairs(rcall('HKEYS', K.up)) do
    if not place[id] then report('flows: up links job ' .. id .. ' that does not exist') end
  end
end
