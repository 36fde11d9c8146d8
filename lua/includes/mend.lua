--@include args
--@include typeGuard
--@include mendJobs
--@include mendFlows
--@include mendLanes
--@include mendLife
--@include mendSched
-- One bounded step of a repair: rebuilds what the scripts keep beside the
-- jobs (ring, gactive, glive, the lane directory, throttled, the counters)
-- from where the jobs really are (lane pending sets, leases, delayed, dead,
-- the jobs and att hashes), and first puts each job in exactly one place
-- (I3). Every change is one line of the reply; with apply false nothing is
-- written (lua/repairplan.lua runs this read-only), with apply true each
-- change is made as it is reported (lua/repair.lua). Every fix is idempotent:
-- a second repair reports nothing.
--
-- The walk, in phases, `budget` items per call at most (a lane's pending
-- set is read whole when its lane is visited):
--   L leases, D delayed, X dead (by rank): ids without a record leave; a job
--     found in two places keeps the first of leases, its lane, delayed, dead;
--     leased and delayed jobs are counted per lane (the tally);
--   N, B, M, G a flow's parents and their counts (lua/includes/mendFlows.lua);
--   F finished (by rank): an id with a record (a live or dead job) or
--     without an outcome in fin leaves the finished sets;
--   E doneexp, K donecnt (by rank): ids that are not finished leave;
--   H fin (HSCAN): the outcome of a job neither finished nor dead goes;
--   J jobs (HSCAN): a record in no place goes back to its lane;
--   A att (HSCAN): the delivery state of no job goes; one that names
--     another lane than its record gets the record's;
--   c, e, d: the lifecycle's per-job entries (lua/includes/mendLife.lua):
--     cancel marks, start deadlines, time limits of no such job go;
--   Q lane pending sets (SCAN): ids without a record or of another lane
--     leave (the latter to their own lane);
--   P lane pending sets (SCAN): each lane is mended, its jobs counted
--     (and a tenant's inner ring met with no lane of it listed is mended);
--   T, V, C, R, I: the lanes of the tally, glive, gactive, the directory
--     and the ring that phase P did not visit (each lane once) are mended,
--     and the tenant entries in the ring;
--   b: the entries of the burst ring are mended (lua/includes/mendLife.lua);
--   O, U, W: the tenants (after all their lanes) of the directory, gactive
--     and glive: sums, directory entry, inner ring, place in the ring;
--   Y: the schedules (lua/includes/mendSched.lua), in one step;
--   f: drops without a deadline go; the lifecycle's flags are set for
--     its keys that hold entries;
--   S: the counters are set against the pending jobs counted in phase P.
-- The cursor carries the phase, its position, the pending jobs counted and
-- the tally (groups in hex: group names are binary). Across calls the queue
-- should be quiet (workers stopped): the tally is only exact when no job
-- moves between the calls. One call that finishes the walk is atomic.
-- Returns {OK, next cursor ('' = done), change...}. Q: readQueue's table.
-- The phases' work: lua/includes/mendJobs.lua (L to Q) and
-- lua/includes/mendLanes.lua (P to S), the mending of one lane or tenant:
-- lua/includes/mendLane.lua. They share the step's state R: apply, budget,
-- the phase's position pos, the pending jobs counted (total), the tally,
-- the tenants mended (mendedT), the reply (out) and Q.
-- (The lifecycle's phases are lower-case letters a to f, which a cursor's
-- alphabet allows already: every capital is taken. lua/includes/mendLife.lua.)
local PHASES = 'LDXNBMGFEKHJAcedQPTVCRIbOUWYfS'
local function hex(s)
  return (string.gsub(s, '.', function(ch) return string.format('%02x', string.byte(ch)) end))
end
local function unhex(h)
  return (string.gsub(h, '%x%x', function(x) return string.char(tonumber(x, 16)) end))
end
-- The cursor: "<phase> <position> <pending counted> <hex group>:<leased>:<delayed> ..."
local function readCursor(R, cursor)
  if cursor == '' then return 'L' end
  local ph, p, t, rest = string.match(cursor, '^(%a) (%d+) (%d+) ?(.*)$')
  if not ph or not string.find(PHASES, ph, 1, true) then return nil end
  R.pos, R.total = p, tonumber(t)
  for hg, l, d in string.gmatch(rest, '(%x+):(%d+):(%d+)') do
    R.tally[unhex(hg)] = { tonumber(l), tonumber(d) }
  end
  return ph
end
local function repairStep(Q, apply, cursor, budget)
  local R = { Q = Q, apply = apply, budget = budget, pos = '0', total = 0, tally = {}, mendedT = {},
              phases = PHASES, out = { OK, '' } }
  local phase = readCursor(R, cursor)
  if not phase then return { EINVAL, 'repair: bad cursor' } end
  local work = 0
  while work < budget do
    local nextPos, did = (MEND_JOBS[phase] or MEND_LANES[phase] or MEND_SCHEDULES[phase] or Life.MEND[phase])(R)
    work = work + math.max(did, 1)
    if nextPos then
      R.pos = nextPos
    else
      local at = string.find(PHASES, phase, 1, true)
      if at == #PHASES then return R.out end  -- done: the cursor stays ''
      phase, R.pos = string.sub(PHASES, at + 1, at + 1), '0'
    end
  end
  local parts = { phase .. ' ' .. R.pos .. ' ' .. S(R.total) }
  for g, t in pairs(R.tally) do parts[#parts + 1] = hex(g) .. ':' .. t[1] .. ':' .. t[2] end
  R.out[2] = table.concat(parts, ' ')
  return R.out
end
-- A repair step's call (lua/repair.lua writes, lua/repairplan.lua only
-- reports): its arguments (cursor, budget), the queue, and for a repair
-- that writes the type of every key first (no half writes).
local function repairCall(apply)
  local A, bad = readArgs()
  if not A then return bad end
  local budget = argInt(A.budget, 1, BATCH_MAX)
  if not budget then return { EINVAL, 'repair: bad cursor or count' } end
  local Q
  Q, bad = readQueue()
  if Q and apply then bad = guardKeys() or typeGuard(Life.keyTypes({})) end
  if bad then return bad end
  return repairStep(Q, apply, A.cursor, budget)
end
