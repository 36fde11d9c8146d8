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
-- The record with its attempt cap raised to `cap`.
local function withCap(rec, cap)
  local g, p, at, _, mx = unpackRecord(rec)
  return packRecord(tonumber(at), cap, tonumber(mx), g, p)
end
