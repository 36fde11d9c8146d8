--@include base
-- The queue's outcome settings (config fields, docs/keys.md "Outcomes"),
-- read at most once per call (kept in Q, the call's readQueue table) and
-- only while its `outcomes` flag (Q.outcomes) is on: {ms = retention time
-- or nil, n = retention count or nil, ev = event stream length or nil, enq
-- = '1' when enqueues are events, perjob = '1' once a job carried its own
-- retention}; nil when the flag is off.
local function outcomeConf(Q)
  if not Q.outcomes then return nil end
  if not Q.oconf then
    local c = rcall('HMGET', K.config, 'keepms', 'keepn', 'events', 'evenq', 'keepjob')
    Q.oconf = { ms = tonumber(c[1] or ''), n = tonumber(c[2] or ''), ev = c[3] or nil, enq = c[4] or nil,
              perjob = c[5] or nil }
  end
  return Q.oconf
end
