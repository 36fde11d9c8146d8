--@include life
-- Extensions (lua/extend.lua) of jobs canceled while leased (Q.cancels):
-- the code out[base + i] of job i (OK: extended) becomes WAS_CANCELED, so
-- the holder stops. The lease is still extended: the holder may settle it,
-- which settles it as canceled (lua/includes/cancelHeld.lua).
function Life.extendCanceled(ids, out, base)
  local why = callSliced('HMGET', P .. 'cancels', ids)
  for i = 1, #ids do
    if why[i] and out[base + i] == OK then out[base + i] = WAS_CANCELED end
  end
end
