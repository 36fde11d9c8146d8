--@include base
-- A job's record, one field of the jobs hash (field = id): immutable but for
-- a redrive or a release, which raise its attempt cap.
--   "<enqueued at> <attempt cap> <max attempts> <group bytes> <group><payload>"
-- One short string per job keeps a pending job small (docs/keys.md); the
-- attempt count and the last error live beside it (att, err hashes).
local function packRecord(at, cap, mx, g, p)
  return S(at) .. ' ' .. S(cap) .. ' ' .. S(mx) .. ' ' .. #g .. ' ' .. g .. p
end
-- Returns group, payload, enqueued at (string), cap, max attempts (string).
local function unpackRecord(rec)
  local at, cap, mx, gl, pos = string.match(rec, '^(%d+) (%d+) (%d+) (%d+) ()')
  gl = tonumber(gl)
  return string.sub(rec, pos, pos + gl - 1), string.sub(rec, pos + gl), at, tonumber(cap), mx
end
-- A job's delivery state, one field of the att hash (absent until its first
-- claim): "<attempts>" or "<attempts> <last error>". The attempt count is the
-- fencing token of the current delivery.
local function unpackAtt(v)
  if not v then return 0, '' end
  local n, r = string.match(v, '^(%d+) ?(.*)$')
  return tonumber(n), r
end
local function packAtt(n, reason)
  if reason and #reason > 0 then return S(n) .. ' ' .. reason end
  return S(n)
end
-- The record with its attempt cap raised to `cap`.
local function withCap(rec, cap)
  local g, p, at, _, mx = unpackRecord(rec)
  return packRecord(tonumber(at), cap, tonumber(mx), g, p)
end
