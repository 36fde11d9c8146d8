--@include base
-- verify's checks of the finished place (docs/keys.md "Outcomes"): every
-- id in `done` is a completed job only (no record, in no other place: the
-- `place` map of verify) with an outcome in fin; doneexp and donecnt hold
-- only finished ids; every fin entry is a finished or a dead job's; the
-- per-job outcome hashes (started, progress, keep, waiters) hold only jobs
-- that exist. Reports each violation through `report`.
local function verifyOutcomes(place, report)
  local fin = {}
  for _, id in ipairs(rcall('HKEYS', K.fin)) do fin[id] = true end
  local done = {}
  for _, id in ipairs(rcall('ZRANGE', K.done, 0, -1)) do
    done[id] = true
    if place[id] then report('I3: job ' .. id .. ' is in ' .. place[id] .. ' and in finished') end
    if not fin[id] then report('I3: finished holds job ' .. id .. ' whose outcome is missing') end
  end
  for _, key in ipairs({ K.doneexp, K.donecnt }) do
    for _, id in ipairs(rcall('ZRANGE', key, 0, -1)) do
      if not done[id] then report('finished: ' .. key .. ' holds job ' .. id .. ' that is not finished') end
    end
  end
  for id in pairs(fin) do
    if not done[id] and place[id] ~= 'dead' then
      report('I3: fin holds job ' .. id .. ' that is neither finished nor dead')
    end
  end
  for _, key in ipairs({ K.started, K.progress, K.keep, K.waiters }) do
    for _, id in ipairs(rcall('HKEYS', key)) do
      if not place[id] then report('outcomes: ' .. key .. ' holds job ' .. id .. ' that does not live') end
    end
  end
end
