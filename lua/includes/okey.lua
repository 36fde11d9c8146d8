--@include base
-- The key of an outcome structure (docs/keys.md, "Outcomes"), built from the
-- prefix like a lane's pending set rather than passed in KEYS: the hot
-- scripts then take no more keys than they did without outcomes (each key
-- passed costs every call), and touch these only while the queue's
-- `outcomes` flag is on. Same hash tag, same slot.
local function okey(name) return P .. name end
