--@include base
-- A script's arguments, read by the layout lua/args.txt gives it (ARGS,
-- generated into the prelude by cmake/EmbedLua.cmake): the one place that
-- counts positions in ARGV. Returns a table (the scripts call it A): each
-- fixed argument by its name, as sent (a string: the script checks what it
-- holds); `mode`, the mode's name, for a script with modes; each section by
-- its name as {n = rows, <field> = {row 1's, row 2's, ...}} (an optional
-- section left out: n = 0); each option by its name as {<value> = ..., and
-- a per-row value as a list}, or nil when absent. Or nil and {EINVAL, msg}
-- when the call does not fit the layout (a count that is no count, too few
-- or too many arguments, an unknown mode or option).
local function argsError(L, what) return nil, { EINVAL, L.script .. ': ' .. what } end
local function readArgs()
  local L, at, argv = ARGS, 2, ARGV
  local nargs = #argv
  local args = {}
  if L.modes then
    args.mode = argv[2]
    L = L.modes[args.mode or '']
    if not L then return argsError(ARGS, 'bad mode') end
    at = 3
  end
  local fixed = L.fixed
  for i = 1, #fixed do args[fixed[i]] = argv[at]; at = at + 1 end
  local sections = L.sections
  for s = 1, #sections do
    local sec = sections[s]
    local rows = argv[at]
    if rows == nil and sec.opt then rows = '0' else at = at + 1 end
    rows = argInt(rows, 0, BATCH_MAX)
    local nf = #sec
    if not rows then return argsError(L, 'bad ' .. sec[1] .. ' count') end
    if at + rows * (nf - 1) - 1 > nargs then return argsError(L, 'argument count does not match') end
    local t = { n = rows }
    for f = 2, nf do
      local col = {}
      for r = 1, rows do col[r] = argv[at + (r - 1) * (nf - 1) + f - 2] end
      t[sec[f]] = col
    end
    at = at + rows * (nf - 1)
    args[sec[1]] = t
  end
  local options = L.options
  for o = 1, #options do
    local opt = options[o]
    if argv[at] == opt[1] then
      local t = {}
      at = at + 1
      for f = 2, #opt do t[opt[f]] = argv[at]; at = at + 1 end
      if opt.col then
        local col, rows = {}, args[opt.of].n
        for r = 1, rows do col[r] = argv[at + r - 1] end
        t[opt.col] = col
        at = at + rows
      end
      args[opt[1]] = t
    end
  end
  if at ~= nargs + 1 then return argsError(L, 'argument count does not match') end
  return args
end
