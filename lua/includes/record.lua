--@include base
-- A job's record, one field of the jobs hash (field = id): immutable but for
-- a redrive or a release, which raise the attempts it is allowed.
--   "<enqueued at> <attempts allowed> <max attempts> <group bytes> <group><payload>"
-- or, for a job with a name or headers (its meta, opaque here: the core
-- encodes and decodes it, cpp/job_meta.cpp),
--   "<enqueued at> <attempts allowed> <max attempts> <group bytes>:<meta bytes> <group><meta><payload>"
-- so a job without them is stored as before and costs nothing more.
-- Attempts allowed: the attempt count at which a failed attempt dead-letters
-- the job (max attempts until a redrive raises it to the attempts so far +
-- max attempts, or a release by one). (A lane's "cap" is another thing: the
-- most jobs waiting in it, lua/cap.lua.)
-- One short string per job keeps a pending job small (docs/keys.md); the
-- attempt count and the last error live beside it (the att hash). A
-- claim returns the record and the delivery state as stored; the core reads
-- both formats too (cpp/job_record.cpp), so a change here changes it.
-- The fields before the group: one string for all the jobs of a call.
local function recordHead(at, allowed, mx) return S(at) .. ' ' .. S(allowed) .. ' ' .. S(mx) .. ' ' end
local function packRecordWith(head, g, p, m)
  if m and #m > 0 then return head .. #g .. ':' .. #m .. ' ' .. g .. m .. p end
  return head .. #g .. ' ' .. g .. p
end
local function packRecord(at, allowed, mx, g, p, m) return packRecordWith(recordHead(at, allowed, mx), g, p, m) end
-- Returns group, payload, enqueued at (string), attempts allowed, max
-- attempts (string), meta (nil when none).
local function unpackRecord(rec)
  local at, allowed, mx, gl, ml, pos = string.match(rec, '^(%d+) (%d+) (%d+) (%d+):?(%d*) ()')
  gl = gl + 0  -- digits (base.lua: argInt)
  local g = string.sub(rec, pos, pos + gl - 1)
  if ml == '' then return g, string.sub(rec, pos + gl), at, tonumber(allowed), mx end
  ml = ml + 0
  return g, string.sub(rec, pos + gl + ml), at, tonumber(allowed), mx, string.sub(rec, pos + gl, pos + gl + ml - 1)
end
-- A job's delivery state, one field of the att hash (absent until its first
-- claim): "<token> <attempts> <group>", then "\n<last error>" once an
-- attempt failed with a reason. The token fences the current delivery and
-- comes first, so a settlement checks it as a string; the group lets an ack
-- fix its lane's counts without reading the record. A group name holds no
-- control character (enqueue refuses one), so "\n" ends it.
-- Returns attempts, last error ('' if none), token, group (nil when absent
-- or malformed: verify reports it).
local function unpackAtt(v)
  if not v then return 0, '', 0, nil end  -- a first claim: no pattern
  local t, n, g, r = string.match(v, '^(%d+) (%d+) ([^\n]*)\n?(.*)$')
  if not t then return 0, '', 0, nil end
  return n + 0, r, t + 0, g
end
-- The group of delivery state v when `token`, a decimal string as a claim
-- returned it, is its token; else nil (absent, malformed, or another
-- delivery's): the fence of every settlement. One match and a string
-- comparison (Lua strings are interned: `==` compares pointers), no number
-- parse: one library call, where slicing the string takes four.
local function heldGroup(v, token)
  if not v then return nil end
  local t, g = string.match(v, '^(%d+) %d+ ([^\n]*)')
  if t ~= token then return nil end
  return g
end
-- An attempt count and a token are integers below 2^53 (ID_MAX), which %d
-- prints exactly (as S does); a group holds no control character (enqueue
-- refuses one), so %s prints it whole. A reason is any bytes: joined as is.
local function packAtt(token, n, g, reason)
  if reason and #reason > 0 then return string.format('%d %d ', token, n) .. g .. '\n' .. reason end
  return string.format('%d %d %s', token, n, g)
end
-- The fencing token of a delivery (docs/architecture.md, "Fencing tokens"):
-- tick * TOKEN_SPREAD + the low bits of the caller's random nonce, where
-- tick = max(the job's previous tick + 1, server ms since TOKEN_EPOCH_MS)
-- (both constants from echomq.h). The previous token is the one in att, so
-- every delivery of a job gets a greater token than all its earlier ones.
-- The clock part makes a delivery a failover lost and the one that replaces
-- it on the promoted server differ, the later one greater, while that
-- server's clock is ahead of the old primary's at the lost delivery; the
-- nonce bits keep two deliveries of one tick apart otherwise. tick stays
-- below TOKEN_TICK_MAX while the clock does (take refuses a clock past it),
-- so a token stays within ID_MAX and exact as a double.
-- 2^41 - 1 (ms to 2093), exact: no library call, as a function library's
-- top level runs where `math` is not reachable.
local TOKEN_TICK_MAX = (ID_MAX - TOKEN_SPREAD + 1) / TOKEN_SPREAD
local function deliveryToken(prev, tickNow, low)
  local tick = math.floor(prev / TOKEN_SPREAD) + 1
  if tickNow > tick then tick = tickNow end
  return tick * TOKEN_SPREAD + low
end
-- The clock part of the tokens of a call at server time `now` (ms), and the
-- nonce's low bits; nil when the clock is past the token space (2093).
local function tokenClock(now, nonce)
  local tick = now - TOKEN_EPOCH_MS
  if tick >= TOKEN_TICK_MAX then return nil end
  return tick, nonce % TOKEN_SPREAD
end
-- The record with its attempts allowed raised to `allowed`.
local function withAllowed(rec, allowed)
  local g, p, at, _, mx, m = unpackRecord(rec)
  return packRecord(tonumber(at), allowed, tonumber(mx), g, p, m)
end
