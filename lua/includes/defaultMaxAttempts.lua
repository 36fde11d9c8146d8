-- Max attempts for jobs enqueued without their own (queue default, else 3).
local function defaultMaxAttempts()
  return tonumber(rcall('HGET', K.config, 'maxatt') or '') or 3
end
