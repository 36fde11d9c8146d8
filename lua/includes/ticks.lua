--@include base
-- The tick times of a schedule (docs/operations.md, "Periodic jobs"), on the
-- server's clock: an `every` grid, or a cron expression read in a zone's
-- local time. The client parses a cron expression into the canonical form
-- read here (cpp/cron.cpp) and a zone's rules into its offsets
-- (cpp/tz.cpp); the ticks themselves are computed here only, where a tick
-- is promoted, so a claim, a listing and "next N" always agree.
--
-- One table of functions (Ticks.next, ...): a script that includes this
-- gains one local (a script has at most 200).
--
-- Canonical cron (cpp/cron.cpp): six fields "sec min hour dom mon dow",
-- each '*' or an ascending comma list of values, a list led by '*' when
-- the field was written from '*' (such as "*/15"). As in Vixie cron, the
-- day of the month and the day of the week restrict together (a day
-- matching either) only when neither was written from '*'; dow 0 = Sunday.
-- Zone rules: "<offset s>" (UTC, a fixed offset) or "<offset s> <at s>:<offset s> ...",
-- the offset before the first transition, then each transition's UTC
-- second and the offset from then on.
-- Local times follow RFC 5545 (3.3.5): a local time that occurs twice (the
-- repeated hour) is the first of the two instants; one that does not occur
-- (the skipped hour) is read with the offset before the gap, so 02:30 on a
-- spring-forward day of one hour fires at 03:30. Instants that coincide
-- are one tick: a tick instant fires at most once.
local Ticks = {}
-- A cron search ends this far (s) past its start: a spec with no match in
-- it never fires (the upsert refuses it).
Ticks.SEARCH_S = 8 * 366 * 86400
-- Days since 1970-01-01 of a civil date, and back (H. Hinnant's algorithms).
function Ticks.daysFrom(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local doy = math.floor((153 * ((m + 9) % 12) + 2) / 5) + d - 1
  return era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
end
function Ticks.civil(z)
  z = z + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp < 10 and mp + 3 or mp - 9
  return yoe + era * 400 + (m <= 2 and 1 or 0), m, doy - math.floor((153 * mp + 2) / 5) + 1
end
-- One field of a canonical cron spec: its values in order, a set, and
-- whether it was written from '*'. nil when malformed or out of [lo, hi].
function Ticks.field(s, lo, hi)
  local f = { list = {}, set = {}, star = string.sub(s, 1, 1) == '*' }
  if s == '*' then
    for v = lo, hi do f.list[#f.list + 1] = v; f.set[v] = true end
    return f
  end
  local body = f.star and string.sub(s, 2) or s
  if not string.match(body, '^%d+[%d,]*$') then return nil end
  local prev = lo - 1
  for v in string.gmatch(body, '[^,]+') do
    v = tonumber(v)
    if not v or v <= prev or v > hi then return nil end
    f.list[#f.list + 1] = v; f.set[v] = true; prev = v
  end
  return #f.list > 0 and f or nil
end
Ticks.RANGES = { { 0, 59 }, { 0, 59 }, { 0, 23 }, { 1, 31 }, { 1, 12 }, { 0, 6 } }
function Ticks.cron(s)
  local parts = {}
  for p in string.gmatch(s, '%S+') do parts[#parts + 1] = p end
  if #parts ~= 6 then return nil end
  local c = {}
  for i = 1, 6 do
    c[i] = Ticks.field(parts[i], Ticks.RANGES[i][1], Ticks.RANGES[i][2])
    if not c[i] then return nil end
  end
  return { sec = c[1], min = c[2], hour = c[3], dom = c[4], mon = c[5], dow = c[6] }
end
function Ticks.zone(s)
  local z = { at = {}, off = {} }
  for tok in string.gmatch(s, '%S+') do
    if not z.off0 then
      z.off0 = tonumber(string.match(tok, '^%-?%d+$') or '')
      if not z.off0 then return nil end
    else
      local a, o = string.match(tok, '^(%-?%d+):(%-?%d+)$')
      if not a or (#z.at > 0 and a + 0 <= z.at[#z.at]) then return nil end
      z.at[#z.at + 1], z.off[#z.off + 1] = a + 0, o + 0
    end
  end
  if not z.off0 then return nil end
  for _, o in ipairs({ z.off0, unpack(z.off) }) do
    if math.abs(o) > 86400 then return nil end
  end
  return z
end
function Ticks.offAt(z, u)
  local o = z.off0
  for i = 1, #z.at do
    if z.at[i] > u then break end
    o = z.off[i]
  end
  return o
end
-- The largest offset in force at some instant of [a, b].
function Ticks.maxOffIn(z, a, b)
  local o = Ticks.offAt(z, a)
  for i = 1, #z.at do
    if z.at[i] > b then break end
    if z.at[i] > a and z.off[i] > o then o = z.off[i] end
  end
  return o
end
-- The instant (UTC s) of local second l (RFC 5545: the first of two; in a
-- gap, read with the offset before it).
function Ticks.instantOf(z, l)
  local n = #z.at
  if n == 0 then return l - z.off0 end
  for i = 0, n do
    local o = i == 0 and z.off0 or z.off[i]
    local u = l - o
    if (i == 0 or u >= z.at[i]) and (i == n or u < z.at[i + 1]) then return u end
  end
  for i = 1, n do
    local before = i == 1 and z.off0 or z.off[i - 1]
    if l - before >= z.at[i] and l - z.off[i] < z.at[i] then return l - before end
  end
  return l - z.off0
end
-- The smallest element of ascending list t that is >= v, or nil.
function Ticks.nextIn(t, v)
  for i = 1, #t do if t[i] >= v then return t[i] end end
  return nil
end
function Ticks.dayOk(c, y, m, d)
  local domOk, dowOk = c.dom.set[d], c.dow.set[(Ticks.daysFrom(y, m, d) + 4) % 7]  -- 1970-01-01: a Thursday
  if c.dom.star or c.dow.star then return domOk and dowOk end
  return domOk or dowOk
end
-- The first local second after t (local seconds) that matches c, up to
-- `limit`; nil if none. Each step jumps to the start of the next month,
-- day, hour or minute that may match, so a search costs a few steps per
-- day it passes over.
function Ticks.nextLocal(c, t, limit)
  local s = t + 1
  while s <= limit do
    local z = math.floor(s / 86400)
    local sod = s - z * 86400
    local y, m, d = Ticks.civil(z)
    if not c.mon.set[m] then
      local nm = Ticks.nextIn(c.mon.list, m + 1)
      s = (nm and Ticks.daysFrom(y, nm, 1) or Ticks.daysFrom(y + 1, c.mon.list[1], 1)) * 86400
    elseif not Ticks.dayOk(c, y, m, d) then
      s = (z + 1) * 86400
    else
      local h = math.floor(sod / 3600)
      local mi = math.floor((sod - h * 3600) / 60)
      local nh = Ticks.nextIn(c.hour.list, h)
      if not nh then
        s = (z + 1) * 86400
      elseif nh > h then
        s = z * 86400 + nh * 3600
      else
        local nmi = Ticks.nextIn(c.min.list, mi)
        if not nmi then
          s = z * 86400 + (h + 1) * 3600
        elseif nmi > mi then
          s = z * 86400 + h * 3600 + nmi * 60
        else
          local nse = Ticks.nextIn(c.sec.list, sod - h * 3600 - mi * 60)
          if nse then return z * 86400 + h * 3600 + mi * 60 + nse end
          s = z * 86400 + h * 3600 + (mi + 1) * 60
        end
      end
    end
  end
  return nil
end
-- The first tick of cron c in zone z after t (UTC ms), in UTC ms; nil if
-- none within Ticks.SEARCH_S. Local matches are walked in local order from a
-- little before t's local time (a gap's times map later than the times
-- after it), keeping the least instant after t, until no later local time
-- can map before it.
function Ticks.nextCron(c, z, t)
  local ts = math.floor(t / 1000)  -- a tick u (s) is after t when u > ts
  local from = ts + math.min(Ticks.offAt(z, ts), Ticks.offAt(z, ts - 90000))
  local limit = ts + Ticks.SEARCH_S
  local best, bound
  local l = Ticks.nextLocal(c, from - 1, limit)
  while l do
    local u = Ticks.instantOf(z, l)
    if u > ts and (not best or u < best) then
      best = u
      bound = Ticks.maxOffIn(z, ts - 90000, best)
    end
    -- Every later local time maps at or after (itself - bound).
    if best and l - bound >= best then break end
    l = Ticks.nextLocal(c, l, limit)
  end
  return best and best * 1000 or nil
end
-- A schedule's timing from its hash fields (lua/includes/sched.lua), or nil
-- when they are unreadable.
function Ticks.timing(h)
  local s = { start = tonumber(h.start or '0') or 0, stop = tonumber(h['end'] or '0') or 0 }
  if h.kind == 'every' then
    s.every, s.anchor = tonumber(h.every or ''), tonumber(h.anchor or '')
    if not s.every or s.every < 1 or not s.anchor then return nil end
  elseif h.kind == 'cron' then
    s.cron, s.zone = Ticks.cron(h.cronx or ''), Ticks.zone(h.tzr or '')
    if not s.cron or not s.zone then return nil end
  else
    return nil
  end
  return s
end
-- The first tick of s after t (server ms), or nil past its end.
function Ticks.next(s, t)
  local x
  if s.every then
    if t < s.anchor then x = s.anchor else x = s.anchor + (math.floor((t - s.anchor) / s.every) + 1) * s.every end
  else
    x = Ticks.nextCron(s.cron, s.zone, math.max(t, s.start - 1))
  end
  if x and s.stop > 0 and x > s.stop then return nil end
  return x
end
-- The latest tick of s in [due, now] (due: a tick, <= now) and how many
-- ticks that range holds (a cron walk counts at most 1,000 and then
-- jumps: the count says "at least").
function Ticks.latest(s, due, now)
  local stop = s.stop > 0 and math.min(now, s.stop) or now
  if s.every then
    local k = math.floor((stop - due) / s.every)
    return due + k * s.every, k + 1
  end
  local last, count = due, 1
  for _ = 1, 1000 do
    local x = Ticks.next(s, last)
    if not x or x > stop then return last, count end
    last, count = x, count + 1
  end
  -- Many missed: the latest tick is found by looking back ever further.
  for _, back in ipairs({ 1000, 60000, 3600000, 86400000, 2678400000, 31622400000 }) do
    local x = Ticks.next(s, stop - back)
    if x and x <= stop and x > last then
      while true do
        local y = Ticks.next(s, x)
        if not y or y > stop then break end
        x = y
      end
      return x, count
    end
  end
  return last, count
end
