--@include emit
--@include okey
-- The outcome side of a claim, while the queue's `outcomes` flag is on:
-- each job's first-started time (its first delivery's) and a `claimed`
-- event. attSet: id, delivery state pairs as serveTurns writes them.
local function startJobs(Q, attSet, now)
  local ids = {}
  for j = 1, #attSet, 2 do ids[#ids + 1] = attSet[j] end
  local had = callSliced('HMGET', okey('started'), ids)
  local set = {}
  for i = 1, #ids do
    if not had[i] then set[#set + 1] = ids[i]; set[#set + 1] = S(now) end
    local att, _, _, g = unpackAtt(attSet[i + i])
    emit(Q, 'claimed', ids[i], g, att)
  end
  if #set > 0 then callSliced('HSET', okey('started'), set) end
end
