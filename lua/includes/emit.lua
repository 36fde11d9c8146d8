--@include outcomes
--@include okey
-- Appends one entry to the queue's event stream when events are on: fields
-- type, id, lane, attempt and time (server ms), then the pairs in `extra`
-- (may be nil). A public format (docs/keys.md, "Events"). MAXLEN ~ keeps
-- the stream near its set length at no cost per entry.
local function emit(Q, kind, id, g, attempt, extra)
  local c = outcomeConf(Q)
  if not c or not c.ev then return end
  local args = { 'XADD', okey('events'), 'MAXLEN', '~', c.ev, '*', 'type', kind, 'id', id or '',
                 'lane', g or '', 'attempt', S(attempt or 0), 'time', S(serverNowMs()) }
  if extra then for i = 1, #extra do args[#args + 1] = extra[i] end end
  rcall(unpack(args))
end
