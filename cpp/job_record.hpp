// A claimed job's stored strings, read on the client: the record (one field
// of the jobs hash) and the delivery state (one field of the att hash), as
// lua/includes/record.lua writes them. A claim returns both as stored, so
// the server does not split them per job (docs/architecture.md).
#pragma once

#include <string_view>

#include "client.hpp"

namespace echomq {

// "<enqueued at> <attempts allowed> <max attempts> <group bytes> <group><payload>"
// or "... <group bytes>:<meta bytes> <group><meta><payload>"
// -> j.enqueued_at_ms, allowed, max_attempts, group, payload (and name,
// headers: cpp/job_meta.hpp). Throws kProto on
// any other shape (a library/script version mismatch).
void readRecord(std::string_view rec, Job& j);

// "<token> <attempts> <group>", then "\n<last error>" when there is one ->
// j.token, attempts, last_error. Throws kProto on any other shape.
void readDelivery(std::string_view att, Job& j);

}  // namespace echomq
