--@include sched
--@include typeGuard
-- What verify (lua/verify.lua) and repair (lua/includes/mendSched.lua) know of
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
  if not Ticks.timing(h) then return 'has an unreadable timing' end
  if not h.paused and not h.ended and not Sched.armed(h) then return 'has unreadable fields' end
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
    local h = Sched.read(name)
    local why = rcall('TYPE', Sched.key(name))['ok'] == 'hash' and schedProblem(name, h)
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
  local held = #rcall('HKEYS', okey('sjob'))  -- (not HLEN: the observer's ACL, docs/operations.md)
  if held ~= #ids then report('schedule: sjob holds ' .. held .. ' jobs, sjobs ' .. #ids) end
end
