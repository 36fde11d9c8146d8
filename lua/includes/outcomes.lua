--@include base
-- The queue's outcome settings (config fields, docs/keys.md "Outcomes"),
-- read once per call and only while its `outcomes` flag is on (OUTCOMES,
-- set by layoutError): {ms = retention time or nil, n = retention count or
-- nil, ev = event stream length or nil, enq = '1' when enqueues are events,
-- perjob = '1' once a job carried its own retention}; nil when the flag is
-- off.
local OCONF
local function outcomeConf()
  if not OUTCOMES then return nil end
  if not OCONF then
    local c = rcall('HMGET', K.config, 'keepms', 'keepn', 'events', 'evenq', 'keepjob')
    OCONF = { ms = tonumber(c[1] or ''), n = tonumber(c[2] or ''), ev = c[3] or nil, enq = c[4] or nil,
              perjob = c[5] or nil }
  end
  return OCONF
end
