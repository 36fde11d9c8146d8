-- Status codes shared with capi/include/echomq/echomq.h (never renumbered).
local OK, EMPTY, EINVAL, ENOTFOUND, ESTALE = 0, 1, -1, -3, -4
