--@include base
-- The size of a weighted turn (wclaim): entry g's lane L serves
-- K = min(weight, depth, limit - active, tokens) jobs at its turn, and a
-- tenant's turn (iv: its inner ring's view) the tenant's weight, within its
-- lane's ceiling and tokens and the tenant's own. Whole turns only: a turn
-- that would pass the call's n jobs is left for the next call (the first
-- turn is cut to n), so every lane gets its full share per turn.
-- v: the ring view (lua/includes/ringView.lua), taken: the jobs the turns
-- took so far. Returns K and the lane's depth, or nil when the turn is left
-- for the next call.
local function turnSize(v, g, L, iv, taken, n)
  local d = v.depth[L]
  if not d then
    d = rpcall('ZCARD', pendingKey(L))
    if type(d) ~= 'number' then d = 0 end  -- not a zset: empty (lua/includes/laneTurn.lua)
  end
  local k = math.min(v.wt[g], d)  -- a tenant's turn: the tenant's weight
  local l, tk = v.lim[L], v.tok[L]
  if l then k = math.min(k, l - v.act[L]) end
  if tk then k = math.min(k, math.floor(tk)) end
  if iv then
    if v.lim[g] then k = math.min(k, v.lim[g] - v.act[g]) end
    if v.tok[g] then k = math.min(k, math.floor(v.tok[g])) end
  end
  if k < 1 then k = 1 end  -- a ring lane is below its ceiling (I1)
  if taken + k > n then
    if taken > 0 then v.depth[L] = d; return nil end
    k = n
  end
  return k, d
end
