--@include base
-- A script's arguments, read by the layout lua/args.txt gives it (ARGS,
-- generated into the prelude by cmake/EmbedLua.cmake): the one place that
-- counts positions in ARGV. Returns a table (the scripts call it A): each
-- fixed argument by its name, as sent (a string: the script checks what it
-- holds); `mode`, the mode's name, for a script with modes; each section by
-- its name as {n = rows, <field> = {row 1's, row 2's, ...}} (a section of no
-- rows, or an optional one left out, is the layout's own empty one: read
-- it, never write into it); each option by its name as {<value> = ..., and
-- a per-row value as a list}, or false when absent. Or nil and {EINVAL, msg}
-- when the call does not fit the layout (a count that is no count, too few
-- or too many arguments, an unknown mode or option).
local function readArgs()
  local read, at = ARGS.read, 2
  if not read then
    read = ARGS.modes[ARGV[2] or '']
    if not read then return nil, { EINVAL, ARGS.script .. ': bad mode' } end
  end
  local A, why = read(ARGV)
  if not A then return nil, { EINVAL, ARGS.script .. ': ' .. why } end
  return A
end
