--@include laneView
--@include cost
-- The view of the ring that a claim's turns work on (lua/includes/turns.lua):
-- a copy of its head, read with one call, and the tally the turns build.
--   q[h..nq]  the ring as the turns see it: h the next entry to turn, and
--             entries that stay go onto q's tail (nq); m entries were read
--   whole     the copy is the whole ring (the turns may come round to an
--             entry again)
--   lim, wt, act, tok, rated   the entries' settings (lua/includes/laneView.lua)
--   depth, servedBy   per lane: pending jobs known, jobs served; lanes the
--             entries served, in order (a tenant's lanes and the tenant)
--   ids, laneOf   the jobs taken and their lanes
--   waiting   score, entry pairs for `throttled` (out of tokens)
-- Also the ring's length, and whether it is the fast view: one turn and no
-- cost mode read the head alone (one LINDEX), put back with one LMOVE or
-- LPOP. nil when the ring is empty. Cost mode reads COST_SKIP entries more:
-- lanes over their share leave at their turn without spending it
-- (lua/includes/costTurns.lua).
-- Sixteen fields: a table's fields take a power of two of slots, each the
-- call's garbage. Without limits, rates and weights the settings are NONE,
-- one empty table for every call, never written (laneTurn writes act only
-- for an entry with a ceiling, tok only for one with a bucket).
local NONE = {}
local function ringView(Q, C)
  local head, len
  local fast = C.turns == 1 and not Q.cost
  if fast then
    local g = rcall('LINDEX', K.ring, 0)
    if not g then return nil end
    head, len = { g }, 1
  else
    len = rcall('LLEN', K.ring)
    if len == 0 then return nil end
    head = rcall('LRANGE', K.ring, 0, math.min(len, Q.cost and C.turns + COST_SKIP or C.turns) - 1)
  end
  local m = #head
  local v
  if C.weighted or not C.plain then
    v = { q = head, h = 1, nq = m, m = m, whole = not fast and m == len,
          lim = {}, wt = C.weighted and {} or nil, act = {}, tok = {}, rated = {},
          depth = {}, servedBy = {}, lanes = {}, ids = {}, laneOf = {}, waiting = {} }
    if Q.burst then v.bur, v.bq = {}, { q = {}, nq = 0 } end  -- lua/includes/burstRing.lua
    loadLanes(Q, C, v, head)
  else
    v = { q = head, h = 1, nq = m, m = m, whole = not fast and m == len,
          lim = NONE, act = NONE, tok = NONE, rated = NONE,
          depth = {}, servedBy = {}, lanes = {}, ids = {}, laneOf = {}, waiting = {} }
  end
  return v, len, fast
end
-- A ring (key) after the turns, from its view r (the ring's, or a tenant's
-- inner ring's: lua/includes/tenantTurn.lua): a whole one rewritten unless
-- it came round to where it was (no write), one entry rotated by one LMOVE,
-- else the visited head entries off the front and the entries still
-- serviceable onto the tail, in the order they were served.
local function writeView(key, r)
  local back, q, h, nq = {}, r.q, r.h, r.nq
  if r.whole then
    local same = nq - h + 1 == r.m
    for i = 0, same and r.m - 1 or -1 do
      if q[h + i] ~= q[1 + i] then same = false; break end
    end
    if same then return end
    rcall('LPOP', key, r.m)  -- (whole: all of it)
    for i = h, nq do back[#back + 1] = q[i] end
  elseif h == 2 and nq == r.m + 1 and q[nq] == q[1] then
    rcall('LMOVE', key, key, 'LEFT', 'RIGHT')
  else
    if h > 1 then rcall('LPOP', key, h - 1) end
    for i = r.m + 1, nq do back[#back + 1] = q[i] end
  end
  if #back > 0 then callSliced('RPUSH', key, back) end
end
-- The ring after the turns; the fast view's one turn rotates the lane to
-- the tail or drops it.
local function writeRing(v, fast)
  if not fast then return writeView(K.ring, v) end
  if v.nq == 2 then rcall('LMOVE', K.ring, K.ring, 'LEFT', 'RIGHT') else rcall('LPOP', K.ring) end
end
