--@include record
-- A finished job's outcome, one field of the fin hash (field = id): kept
-- for a retained completed job (its record and delivery state are gone) and
-- for a dead job (beside them), docs/keys.md "Outcomes":
--   "<finished at> <first started> <attempts> <token> <enqueued at> <max
--   attempts> <group bytes> <progress bytes> <error bytes> <group><progress><error><result>"
-- A completed job keeps no payload. A completed job whose result was
-- dropped (`dropped`: why) keeps none either: a leading "d" marks it, and
-- the bytes after the error are then the reason, not a result.
local function packFin(fin, started, att, token, at, mx, g, prog, err, result, dropped)
  return string.format('%s%s %s %d %d %s %s %d %d %d ', dropped and 'd' or '', S(fin), started or '0', att, token, at,
    mx, #g, #prog, #err) .. g .. prog .. err .. (dropped or result)
end
-- Returns a table {fin, started, attempts, token, enqueued, max, group,
-- progress, error, result, dropped} (numbers as strings; dropped: why the
-- result was dropped, or nil), or nil when malformed.
local function unpackFin(v)
  if not v then return nil end
  local d, f, st, a, t, at, mx, gl, pl, el, pos =
    string.match(v, '^(d?)(%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+) ()')
  if not f then return nil end
  gl, pl, el = gl + 0, pl + 0, el + 0
  local o = { fin = f, started = st, attempts = a, token = t, enqueued = at, max = mx }
  o.group = string.sub(v, pos, pos + gl - 1); pos = pos + gl
  o.progress = string.sub(v, pos, pos + pl - 1); pos = pos + pl
  o.error = string.sub(v, pos, pos + el - 1); pos = pos + el
  o.result = string.sub(v, pos)
  if d == 'd' then o.dropped, o.result = o.result, '' end
  return o
end
