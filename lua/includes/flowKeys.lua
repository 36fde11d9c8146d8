--@include base
-- The keys of flows (docs/keys.md, "Flows"), built from the prefix like the
-- outcome keys (lua/includes/okey.lua): the claim and ack paths take no
-- more KEYS for them, and touch them only while the queue's `flows` flag
-- is on (Q.flows). Same hash tag, same slot. Every flow helper is a field
-- of the one table FL (this file and lua/includes/flowLinks.lua): the claim
-- path's script stays under Lua's 200 locals a function.
local FL = {}
--   parents  zset: the place "waiting for children" (I3), ids by mint order
--   deps     hash: parent id -> its children not yet finished
--   up       hash: id -> "<parent id> <on fail> <has children>" of every job
--            of a flow that is linked still (parent 0: a root)
--   k:<id>   hash: parent id's children -> "" while one runs, its outcome
--            once it finished (flowOutcome)
function FL.key(name) return P .. name end
function FL.kids(pid) return P .. 'k:' .. pid end
FL.KEYS = { 'parents', 'deps', 'up' }
-- What a parent does when a child dies: FLOW_FAIL (it dies too, the reason
-- naming the child), FLOW_IGNORE (the child is left out), FLOW_CONTINUE
-- (it runs with the death among its children's outcomes): echomq/flows.h.
function FL.packUp(pid, policy, kids) return pid .. ' ' .. policy .. ' ' .. (kids and '1' or '0') end
-- Returns parent id ('0' none), policy (a number), has children.
function FL.unpackUp(v)
  local pid, pol, kids = string.match(v, '^(%d+) (%d) ([01])$')
  if not pid then return nil end
  return pid, pol + 0, kids == '1'
end
-- A finished child's outcome in its parent's k: hash: state (c completed,
-- d dead), finished ms, attempts, error bytes, then the error and the result.
function FL.outcome(state, now, att, err, result)
  err = err or ''
  return state .. ' ' .. S(now) .. ' ' .. S(att) .. ' ' .. #err .. ' ' .. err .. (result or '')
end
-- Returns state letter, finished ms, attempts, error, result; nil for "" (running).
function FL.unpackOutcome(v)
  local st, ms, att, el, pos = string.match(v, '^(%a) (%d+) (%d+) (%d+) ()')
  if not st then return nil end
  el = el + 0
  return st, ms, att, string.sub(v, pos, pos + el - 1), string.sub(v, pos + el)
end
