--@include sched
--@include typeGuard
-- What verify (lua/verify.lua) and repair (lua/includes/mend.lua) know of
-- schedules (lua/includes/sched.lua): every schedule is listed in sdir and
-- has a readable hash; sdue holds exactly the armed ones (not paused, not
-- ended), each scored by its next tick; the config field `sched` holds
-- sdue's head score (absent when sdue is empty); sjob and sjobs hold the
-- same job ids.
-- An sjob entry whose job is gone is not a fault (fires drop them lazily);
-- repair drops them all.
-- A line for the first schedule key (sdue, sdir, sjob, sjobs) that holds
-- the wrong type, or nil.
local function schedKeyTypeProblem()
  for _, name in ipairs({ 'sdue', 'sdir', 'sjob', 'sjobs' }) do
    local got = rcall('TYPE', okey(name))['ok']
    if got ~= 'none' and got ~= KEY_TYPES[name] then
      return 'type: ' .. okey(name) .. ' holds a ' .. got .. ', not a ' .. KEY_TYPES[name]
    end
  end
  return nil
end
-- Why schedule `name` (its hash h) is unsound, or nil: a hash that is
-- missing or does not read as a schedule.
local function schedProblem(name, h)
  if not h.spec then return 'is listed but has no hash' end
  if h.kind ~= 'every' and h.kind ~= 'cron' then return 'has no kind' end
  if not h.lane or not h.payload then return 'has no lane or payload' end
  if not Sched.lib().ticks.timing(h) then return 'has an unreadable timing' end
  if not h.paused and not h.ended and not Sched.lib().armed(h) then return 'has unreadable fields' end
  if not h.ended and not tonumber(h.next or '') then return 'has no next tick' end
  return nil
end
-- Calls report(line) for each fault of the schedules.
local function checkSchedules(report)
  local bad = schedKeyTypeProblem()
  if bad then report(bad); return end
  local listed = {}
  for _, name in ipairs(rcall('ZRANGE', okey('sdir'), 0, -1)) do listed[name] = true end
  local cursor = '0'
  repeat
    local r = rcall('SCAN', cursor, 'MATCH', globEscape(P) .. 's:*', 'COUNT', 1000)
    cursor = r[1]
    for _, k in ipairs(r[2]) do
      local name = string.sub(k, #P + 3)
      if rcall('TYPE', k)['ok'] ~= 'hash' then report('type: ' .. k .. ' is not a hash')
      elseif not listed[name] then report('schedule: ' .. name .. ' has a hash but is not listed in sdir') end
    end
  until cursor == '0'
  local head = rcall('ZRANGE', okey('sdue'), 0, 0, 'WITHSCORES')[2]
  local field = rcall('HGET', K.config, 'sched')
  if tonumber(head or '') ~= tonumber(field or '') then
    report('schedule: config sched is ' .. (field or 'absent') .. ', the earliest next tick in sdue ' .. (head or 'none'))
  end
  local armedAt = {}
  for name in pairs(listed) do
    local h = Sched.lib().read(name)
    local why = rcall('TYPE', Sched.lib().key(name))['ok'] == 'hash' and schedProblem(name, h)
    if why then report('schedule: ' .. name .. ' ' .. why) end
    if h.spec and not h.paused and not h.ended then armedAt[name] = h.next end
  end
  local due = rcall('ZRANGE', okey('sdue'), 0, -1, 'WITHSCORES')
  local inDue = {}
  for i = 1, #due, 2 do
    local name = due[i]
    inDue[name] = true
    if not armedAt[name] then
      report('schedule: sdue holds ' .. name .. ', which is ' .. (listed[name] and 'not armed (paused or ended)' or 'not listed'))
    elseif tonumber(due[i + 1]) ~= tonumber(armedAt[name]) then
      report('schedule: ' .. name .. ' is due at ' .. due[i + 1] .. ' in sdue but its next tick is ' .. armedAt[name])
    end
  end
  for name in pairs(armedAt) do
    if not inDue[name] then report('schedule: ' .. name .. ' is armed but not in sdue') end
  end
  local ids = rcall('ZRANGE', okey('sjobs'), 0, -1)
  for _, id in ipairs(ids) do
    if rcall('HEXISTS', okey('sjob'), id) == 0 then report('schedule: sjobs holds job ' .. id .. ' that sjob does not') end
  end
  if rcall('HLEN', okey('sjob')) ~= #ids then
    report('schedule: sjob holds ' .. rcall('HLEN', okey('sjob')) .. ' jobs, sjobs ' .. #ids)
  end
end
-- Repair: mends what checkSchedules reports, one change per line (say), as
-- mend.lua's phases do (w writes only when applying). Bounded by the
-- schedules and the entries of sjob: one step.
local function mendSchedules(say, w)
  local bad = schedKeyTypeProblem()
  if bad then say(bad .. ' (schedules not repaired)'); return end
  local listed = {}
  for _, name in ipairs(rcall('ZRANGE', okey('sdir'), 0, -1)) do
    if rcall('EXISTS', Sched.lib().key(name)) == 0 then
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
      if not listed[name] and rcall('TYPE', k)['ok'] == 'hash' and Sched.lib().read(name).spec then
        say('schedule: ' .. name .. ' listed in sdir (it had a hash)')
        w('ZADD', okey('sdir'), 0, name)
        listed[name] = true
      end
    end
  until cursor == '0'
  local want = {}
  for name in pairs(listed) do
    local h = Sched.lib().read(name)
    local why = schedProblem(name, h)
    if why and not h.paused then
      say('schedule: ' .. name .. ' ' .. why .. ': paused (an upsert mends it)')
      w('HSET', Sched.lib().key(name), 'paused', '1')
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
    if not Sched.lib().place(id) then
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
end
