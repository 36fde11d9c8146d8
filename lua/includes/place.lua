--@include flowKeys
-- Where job id, which has a record, is (I3: the place that holds it) and
-- its time there: leased (lease deadline), delayed (due time), dead (time
-- of death), waiting for its children (JOB_WAITING: "0"), else pending
-- ("0").
local function jobPlace(id)
  for _, w in ipairs({ { K.leases, JOB_LEASED }, { K.delayed, JOB_DELAYED }, { K.dead, JOB_DEAD },
                       { FL.key('parents'), JOB_WAITING } }) do
    local sc = rcall('ZSCORE', w[1], id)
    if sc then return w[2], w[2] == JOB_WAITING and '0' or sc end
  end
  return JOB_PENDING, '0'
end
