--@include base
--@include idemStore
-- Idempotency keys of enqueue: `idem` maps a key to "<job id> <window end
-- ms>", `idemexp` holds the keys scored by their window end, so expired
-- keys go in bounded steps and the oldest go first past DEDUP_KEYS_MAX.
-- Reads only: of the jobs of enqueue call E (lua/includes/enqueueCall.lua),
-- the entries to enqueue (their indexes), and for the others the id they
-- duplicate (dupOf[i]: a job id, or {j}: the earlier entry j of this
-- call); keyAt[i] the key of entry i ("" none).
local function dedupEntries(E)
  local n, entries, dupOf, keyAt, firstWith, ask = E.n, {}, {}, E.keys, {}, {}
  for i = 1, n do
    local key = keyAt[i]
    if #key > 0 then ask[#ask + 1] = key end
  end
  local seen = #ask > 0 and callSliced('HMGET', K.idem, ask) or {}
  local known, now, a = {}, serverNowMs(), 0
  for i = 1, n do
    local key = keyAt[i]
    if #key > 0 then
      a = a + 1
      local id, ends = string.match(seen[a] or '', '^(%d+) (%d+)$')
      if id and tonumber(ends) > now then known[key] = id end
    end
  end
  for i = 1, n do
    local key = keyAt[i]
    if #key > 0 and known[key] then
      dupOf[i] = known[key]
    elseif #key > 0 and firstWith[key] then
      dupOf[i] = { firstWith[key] }
    else
      if #key > 0 then firstWith[key] = i end
      entries[#entries + 1] = i
    end
  end
  return entries, dupOf, keyAt
end
-- The reply of a keyed enqueue: {OK, an `enqueued` head (first id, jobs
-- enqueued), n ids, n flags}.
local function dedupReply(n, first, enq, dupOf, idOf)
  local out = { OK }
  out[1 + ENQUEUED_FIRST] = first
  out[1 + ENQUEUED_COUNT] = enq
  for i = 1, n do
    local d = dupOf[i]
    if type(d) == 'table' then d = idOf[d[1]] end
    out[#out + 1] = d or idOf[i]
  end
  for i = 1, n do out[#out + 1] = dupOf[i] and 1 or 0 end
  return out
end
-- Writes the keys of the entries just enqueued (`entries`, ids from `first`), drops
-- expired keys (a bounded number per call) and the keys closest to their
-- end past DEDUP_KEYS_MAX, and returns the reply.
local function rememberKeys(n, first, entries, dupOf, keyAt, window, now)
  local idOf, set, exp = {}, {}, {}
  for e, i in ipairs(entries) do
    idOf[i] = S(first + e - 1)
    local key = keyAt[i]
    if #key > 0 then
      set[#set + 1] = key; set[#set + 1] = idOf[i] .. ' ' .. S(now + window)
      exp[#exp + 1] = S(now + window); exp[#exp + 1] = key
    end
  end
  Idem.store(K.idem, K.idemexp, set, exp, now, RECOVER_MAX + #entries)
  return dedupReply(n, first, #entries, dupOf, idOf)
end
