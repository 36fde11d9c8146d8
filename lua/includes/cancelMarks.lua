--@include life
-- Extensions (lua/extend.lua) of jobs canceled while leased (Q.cancels):
-- the marks of jobs `ids`, read before the extension's first write; then
-- the code out[base + i] of a marked job i (OK: extended) becomes
-- WAS_CANCELED, so the holder stops. The lease is still extended: the
-- holder may settle it, which settles it as canceled
-- (lua/includes/cancelHeld.lua).
function Life.cancelMarks(ids) return callSliced('HMGET', P .. 'cancels', ids) end
function Life.extendCanceled(marks, out, base)
  for i = 1, #marks do
    if marks[i] and out[base + i] == OK then out[base + i] = WAS_CANCELED end
  end
end
