--@include base
-- A job's record, one field of the jobs hash (field = id): immutable but for
-- a redrive or a release, which raise its attempt cap.
--   "<enqueued at> <attempt cap> <max attempts> <group bytes> <group><payload>"
-- One short string per job keeps a pending job small (docs/keys.md); the
-- attempt count and the last error live beside it (the att hash). A
-- claim returns the record and the delivery state as stored; the core reads
-- both formats too (core/job_record.cpp), so a change here changes it.
-- The fields before the group: one string for all the jobs of a call.
local function recordHead(at, cap, mx) return S(at) .. ' ' .. S(cap) .. ' ' .. S(mx) .. ' ' end
local function packRecordWith(head, g, p) return head .. #g .. ' ' .. g .. p end
local function packRecord(at, cap, mx, g, p) return packRecordWith(recordHead(at, cap, mx), g, p) end
-- Returns group, payload, enqueued at (string), cap, max attempts (string).
local function unpackRecord(rec)
  local at, cap, mx, gl, pos = string.match(rec, '^(%d+) (%d+) (%d+) (%d+) ()')
  gl = gl + 0  -- digits (base.lua: argInt)
  return string.sub(rec, pos, pos + gl - 1), string.sub(rec, pos + gl), at, tonumber(cap), mx
end
-- The group alone (an ack needs no more of the record).
local function recordGroup(rec)
  local gl, pos = string.match(rec, '^%d+ %d+ %d+ (%d+) ()')
  return string.sub(rec, pos, pos + gl - 1)  -- gl: digits
end
-- A job's delivery state, one field of the att hash (absent until its first
-- claim): "<attempts> <token>" or "<attempts> <token> <last error>". The
-- attempt count counts deliveries; the token fences the current one.
-- Returns attempts, last error, token.
local function unpackAtt(v)
  if not v then return 0, '', 0 end
  local n, t, r = string.match(v, '^(%d+) (%d+) ?(.*)$')
  return n + 0, r, t + 0
end
-- The token alone (what a settlement checks).
local function attToken(v)
  if not v then return 0 end
  return string.match(v, '^%d+ (%d+)') + 0
end
-- One format for both: an attempt count and a token are integers below
-- 2^53 (ID_MAX), which %d prints exactly (as S does).
local function packAtt(n, token, reason)
  local v = string.format('%d %d', n, token)
  if reason and #reason > 0 then return v .. ' ' .. reason end
  return v
end
-- The fencing token of a delivery: the caller's random nonce (1..ID_MAX,
-- fresh per call) advanced by the attempt, wrapping within 1..ID_MAX, so
-- every step stays an exact double. A claim that a lost write (failover)
-- handed out cannot predict the next one's token; for one nonce, distinct
-- attempts still give distinct tokens.
local function deliveryToken(nonce, attempt)
  local room = ID_MAX - nonce
  if attempt <= room then return nonce + attempt end
  return attempt - room
end
-- The record with its attempt cap raised to `cap`.
local function withCap(rec, cap)
  local g, p, at, _, mx = unpackRecord(rec)
  return packRecord(tonumber(at), cap, tonumber(mx), g, p)
end
