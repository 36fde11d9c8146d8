--@include lane
--@include typeGuard
--@include emit
-- What the scripts that change a lane's setting share (weight, limit, cap,
-- pause, rate).
-- The queue (readQueue), once the call's arguments are checked: no half
-- writes (every fixed key, and the own keys of the lanes `groups`: the
-- tenant ring a change may touch, lua/includes/typeGuard.lua), and the
-- change as an event (docs/keys.md "Events"): lane g ('' = the queue
-- default), setting `name`, its value as given. Returns Q, or nil and the
-- reply that refuses the call.
local function settingQueue(groups, g, name, value)
  local Q, bad = readQueue()
  bad = bad or guardKeys(groups)
  if bad then return nil, bad end
  if Q.outcomes then emit(Q, 'setting', '', g, 0, { 'setting', name, 'value', value }) end
  return Q
end
-- A lane's number setting `name` (weight, limit): lane g (not empty) and
-- the value as sent, 0..max (0 clears it); then settingQueue, the lane's
-- own keys guarded when `guardLane` (the change may move it between
-- rings). Returns Q and the value, or nil and the reply that refuses.
local function laneSetting(g, value, max, name, guardLane)
  local v = argInt(value, 0, max)
  if not g or #g == 0 or not v then return nil, { EINVAL, name .. ': bad group or ' .. name } end
  local Q, bad = settingQueue(guardLane and { g } or nil, g, name, value)
  if not Q then return nil, bad end
  return Q, v
end
-- Lane g's own value v in settings hash `key` (g = '': the queue default):
-- set, which lists the lane in the directory; or with v = 0 cleared, and a
-- lane left with no live job and no setting leaves the directory.
local function setOwn(key, g, v)
  if v == 0 then
    rcall('HDEL', key, g)
    if #g > 0 and tonumber(rcall('HGET', K.glive, g) or '0') <= 0 then forgetIdleLane(g) end
  else
    rcall('HSET', key, g, S(v))
    if #g > 0 then rcall('ZADD', K.lanes, 'NX', 0, g) end
  end
end
