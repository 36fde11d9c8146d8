--@include base
--@include okey
-- Wakes the waiters of job `id` (lua/wait.lua registered `w` of them):
-- one element each on the job's wake-up list, which expires after
-- WAIT_GRACE_MS so an element no waiter took (a waiter that gave up) never
-- stays. The waiter then reads the outcome (retained at least that long).
local function wakeWaiters(id, w)
  w = tonumber(w or '0') or 0
  if w <= 0 then return end
  local key, ones = P .. 'w:' .. id, {}
  for i = 1, math.min(w, BATCH_MAX) do ones[i] = '1' end
  callSliced('RPUSH', key, ones)
  rcall('PEXPIRE', key, WAIT_GRACE_MS)
end
