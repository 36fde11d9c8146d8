--@include schedCheck
-- Phase Y of a repair step (lua/includes/mend.lua): mends what
-- checkSchedules (lua/includes/schedCheck.lua) reports, one change per
-- line, as the other phases do (a write only when the repair applies).
-- Bounded by the schedules and the entries of sjob: one step.
local function mendSchedules(R)
  local function say(msg) R.out[#R.out + 1] = msg end
  local function w(...) if R.apply then rcall(...) end end
  local bad = schedKeyTypeProblem()
  if bad then say(bad .. ' (schedules not repaired)'); return nil, 1 end
  local listed = {}
  for _, name in ipairs(rcall('ZRANGE', okey('sdir'), 0, -1)) do
    if rcall('EXISTS', Sched.key(name)) == 0 then
      say('schedule: ' .. name .. ' dropped from sdir (no hash)')
      w('ZREM', okey('sdir'), name)
    else
      listed[name] = true
    end
  end
  local cursor = '0'
  repeat
    local r = rcall('SCAN', cursor, 'MATCH', globEscape(P) .. 's:*', 'COUNT', 1000)
    cursor = r[1]
    for _, k in ipairs(r[2]) do
      local name = string.sub(k, #P + 3)
      if not listed[name] and rcall('TYPE', k)['ok'] == 'hash' and Sched.read(name).spec then
        say('schedule: ' .. name .. ' listed in sdir (it had a hash)')
        w('ZADD', okey('sdir'), 0, name)
        listed[name] = true
      end
    end
  until cursor == '0'
  local want = {}
  for name in pairs(listed) do
    local h = Sched.read(name)
    local why = schedProblem(name, h)
    if why and not h.paused then
      say('schedule: ' .. name .. ' ' .. why .. ': paused (an upsert mends it)')
      w('HSET', Sched.key(name), 'paused', '1')
    elseif not why and not h.paused and not h.ended then
      want[name] = h.next
    end
  end
  local due = rcall('ZRANGE', okey('sdue'), 0, -1, 'WITHSCORES')
  local have = {}
  for i = 1, #due, 2 do have[due[i]] = due[i + 1] end
  for name, sc in pairs(have) do
    if not want[name] then
      say('schedule: ' .. name .. ' dropped from sdue (not armed)')
      w('ZREM', okey('sdue'), name)
    elseif tonumber(sc) ~= tonumber(want[name]) then
      say('schedule: ' .. name .. ' due at its next tick ' .. want[name] .. ' (sdue said ' .. sc .. ')')
      w('ZADD', okey('sdue'), want[name], name)
    end
  end
  for name, nx in pairs(want) do
    if not have[name] then
      say('schedule: ' .. name .. ' armed in sdue at its next tick ' .. nx)
      w('ZADD', okey('sdue'), nx, name)
    end
  end
  -- After the fixes above: what sdue's head will be.
  local head
  for name, nx in pairs(want) do
    if not head or tonumber(nx) < head then head = tonumber(nx) end
  end
  local field = tonumber(rcall('HGET', K.config, 'sched') or '')
  if field ~= head then
    say('config: sched ' .. (field and S(field) or 'absent') .. ' -> ' .. (head and S(head) or 'absent') ..
      ' (the earliest next tick)')
    if head then w('HSET', K.config, 'sched', S(head)) else w('HDEL', K.config, 'sched') end
  end
  local kept = {}
  for _, id in ipairs(rcall('HKEYS', okey('sjob'))) do
    if not Sched.place(id) then
      say('sjob: job ' .. id .. ' dropped (the job is gone)')
      w('HDEL', okey('sjob'), id)
    else
      kept[id] = true
      if not rcall('ZSCORE', okey('sjobs'), id) then
        say('sjobs: job ' .. id .. ' added'); w('ZADD', okey('sjobs'), 0, id)
      end
    end
  end
  for _, id in ipairs(rcall('ZRANGE', okey('sjobs'), 0, -1)) do
    if not kept[id] then say('sjobs: job ' .. id .. ' dropped'); w('ZREM', okey('sjobs'), id) end
  end
  return nil, 1
end
local MEND_SCHEDULES = { Y = mendSchedules }
