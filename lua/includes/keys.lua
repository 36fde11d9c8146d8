-- Fixed keys of a queue, in the order every script receives them (the C++
-- side builds the same list in cpp/keys.cpp), and builders for the per-job
-- and per-lane keys, all under the prefix "emq:{q}:" passed as ARGV[1].
local K = {
  seq = KEYS[1], ring = KEYS[2], gweight = KEYS[3], glimit = KEYS[4],
  gactive = KEYS[5], paused = KEYS[6], leases = KEYS[7], delayed = KEYS[8],
  dead = KEYS[9], lanes = KEYS[10], glive = KEYS[11], gserved = KEYS[12],
  stats = KEYS[13], config = KEYS[14], wake = KEYS[15],
}
local P = ARGV[1]
local rcall = redis.call
local function pendingKey(g) return P .. 'g:' .. g .. ':pending' end
local function jobKey(id) return P .. 'job:' .. id end
-- Integers go to Valkey as strings; %.0f keeps 13-digit milliseconds exact.
local function S(n) return string.format('%.0f', n) end
