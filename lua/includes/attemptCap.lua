-- Attempts the job may reach: its max attempts, raised by a redrive
-- (cap = attempts at redrive + max) so the fencing token never goes back.
local function attemptCap(cap, mx)
  return tonumber(cap) or tonumber(mx) or 1
end
