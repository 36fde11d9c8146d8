--@include base
-- Why a job is not held, for the calls that need its lease (ack, fail,
-- extend, progress): an id the queue minted (id <= seq) is ESTALE — its
-- lease was lost, or it was settled already (a second ack of a completed
-- job) — and one it never minted is ENOTFOUND. Read only on a refusal: the
-- calls that are taken pay nothing for it.
local function notHeld(id)
  return tonumber(id) <= tonumber(rcall('GET', K.seq) or '0') and ESTALE or ENOTFOUND
end
