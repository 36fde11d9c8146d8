--@include base
-- The key of an outcome structure (docs/keys.md, "Outcomes"), built from the
-- prefix like a lane's pending set rather than passed in KEYS: the hot
-- scripts then take no more keys than they did without outcomes (each key
-- passed costs every call), and touch these only while the queue's
-- `outcomes` flag is on. Same hash tag, same slot.
local function okey(name) return P .. name end
-- The outcome structures a settling call may write (their types:
-- lua/includes/typeGuard.lua, KEY_TYPES).
local OUTCOME_KEYS = { 'done', 'doneexp', 'donecnt', 'fin', 'started', 'keep', 'waiters', 'progress', 'events' }
