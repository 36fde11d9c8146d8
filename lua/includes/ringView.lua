--@include laneView
--@include cost
-- The view of the ring that a claim's turns work on (lua/includes/turns.lua):
-- a copy of its head, read with one call, and the state the turns build up.
--   q[h..nq]  the ring as the turns see it: h the next entry to turn, and
--             entries that stay go onto q's tail (nq); m entries were read
--   len       the ring's length; size its length as the turns change it
--   whole     the copy is the whole ring (the turns may come round again)
--   fast      one turn and no cost mode: the head alone (one LINDEX), put
--             back with one LMOVE or LPOP
--   lim, wt, act, tok, rated   the lanes' settings (lua/includes/laneView.lua)
--   depth, servedBy   per lane: pending jobs known, jobs served; lanes the
--             entries served, in order (a tenant's lanes and the tenant)
--   ids, laneOf, taken   the jobs taken and their lanes; t the turns spent
--   waiting   score, entry pairs for `throttled` (out of tokens)
-- nil when the ring is empty. Cost mode reads COST_SKIP entries more: lanes
-- over their share leave at their turn without spending it (costTurns).
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
  local v = { q = head, h = 1, nq = m, m = m, len = len, size = len, whole = not fast and m == len, fast = fast,
              lim = {}, wt = C.weighted and {} or nil, act = {}, tok = {}, rated = {},
              depth = {}, servedBy = {}, lanes = {}, ids = {}, laneOf = {}, taken = 0, t = 0, waiting = {},
              now = C.now }
  if C.weighted or not C.plain then loadLanes(Q, C, v, head) end
  return v
end
-- A ring (key) after the turns, from its view r (the ring's, or a tenant's
-- inner ring's: lua/includes/tenantTurn.lua): a whole one rewritten unless
-- it came round to where it was (no write), one entry rotated by one LMOVE,
-- else the visited head entries off the front and the entries still
-- serviceable onto the tail, in the order they were served.
local function writeView(key, r)
  local back, q, h, nq = {}, r.q, r.h, r.nq
  if r.whole then
    local same = nq - h + 1 == r.len
    for i = 0, same and r.len - 1 or -1 do
      if q[h + i] ~= q[1 + i] then same = false; break end
    end
    if same then return end
    rcall('LPOP', key, r.len)
    for i = h, nq do back[#back + 1] = q[i] end
  elseif h == 2 and nq == r.m + 1 and q[nq] == q[1] then
    rcall('LMOVE', key, key, 'LEFT', 'RIGHT')
  else
    if h > 1 then rcall('LPOP', key, h - 1) end
    for i = r.m + 1, nq do back[#back + 1] = q[i] end
  end
  if #back > 0 then callSliced('RPUSH', key, back) end
end
-- The ring after the turns; the fast path's one turn rotates the lane to
-- the tail or drops it.
local function writeRing(v)
  if not v.fast then return writeView(K.ring, v) end
  if v.nq == 2 then rcall('LMOVE', K.ring, K.ring, 'LEFT', 'RIGHT') else rcall('LPOP', K.ring) end
end
