--@include many
--@include record
--@include startJobs
--@include waits
--@include lifeTake
-- The lease of the jobs a claim's turns took (v.ids, their lanes v.laneOf:
-- lua/includes/ringView.lua), until C.now + C.lease: each job's attempt
-- count rises and it gets a new fencing token, made from its previous
-- token, the clock tick and the nonce's low bits (deliveryToken,
-- tokenClock: the caller checked the clock). Each goes to `out` as a `job`
-- row (lua/replies.txt: JOB_FIELDS values), its delivery state and record
-- as stored. One call per hash for the whole batch. With outcomes on, the
-- jobs' first-started times and `claimed` events (startJobs); with wait
-- figures on, the lanes' claims and the first deliveries' waits
-- (recordWaits). Returns the number of jobs leased: an id without a record
-- is no job (verify reports it) and leaves its lane's count.
local function leaseJobs(Q, C, v, out)
  local ids, laneOf, servedBy = v.ids, v.laneOf, v.servedBy
  local recs = callSliced('HMGET', K.jobs, ids)
  local atts = callSliced('HMGET', K.att, ids)
  local deadline = S(C.now + C.lease)
  local tickNow, low = tokenClock(C.now, C.nonce)
  local attSet, leaseAdd = {}, {}
  local first = Q.waits and {} or nil  -- the jobs on their first delivery (wait figures)
  local o = #out
  local taken = 0
  for i = 1, #ids do
    local id, rec = ids[i], recs[i]
    if rec then
      local att, err, prev = unpackAtt(atts[i])
      att = att + 1
      if first and att == 1 then first[#first + 1] = i end
      local delivery = packAtt(deliveryToken(prev, tickNow, low), att, laneOf[i], err)
      out[o + JOB_ID] = id; out[o + JOB_LEASE_UNTIL] = deadline
      out[o + JOB_DELIVERY] = delivery; out[o + JOB_RECORD] = rec
      o = o + JOB_FIELDS
      local j = taken + taken
      attSet[j + 1] = id; attSet[j + 2] = delivery
      leaseAdd[j + 1] = deadline; leaseAdd[j + 2] = id
      taken = taken + 1
    else
      local g = laneOf[i]
      servedBy[g] = servedBy[g] - 1
    end
  end
  if taken > 0 then
    callSliced('HSET', K.att, attSet)
    callSliced('ZADD', K.leases, leaseAdd)
    if Q.outcomes then startJobs(Q, attSet, C.now) end
    if Q.timeouts or Q.expiry then Life.leased(Q, C, attSet) end
    if first then recordWaits(Q, v.lanes, servedBy, first, laneOf, recs, C.weighted, C.now) end
  end
  addCounts(K.gactive, v.lanes, servedBy)
  addCounts(K.gserved, v.lanes, servedBy)
  return taken
end
