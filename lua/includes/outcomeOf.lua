--@include fin
--@include okey
-- The retained outcome of completed job `id` (its fin entry, unpacked), or
-- nil when it is not retained or its time or count has run out (a trim
-- not yet made hides it too: lookups never show an expired outcome).
local function outcomeOf(id, now)
  if not rcall('ZSCORE', okey('done'), id) then return nil end
  local exp = rcall('ZSCORE', okey('doneexp'), id)
  if exp and tonumber(exp) <= now then return nil end
  local cnt = rcall('ZSCORE', okey('donecnt'), id)
  if cnt and tonumber(cnt) <= tonumber(rcall('HGET', K.stats, 'kept') or '0') then return nil end
  return unpackFin(rcall('HGET', okey('fin'), id))
end
