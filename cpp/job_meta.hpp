// A job's name and headers (kind and metadata): checked and encoded on the
// client before any I/O, stored as one opaque string beside the payload in
// the job's record (lua/includes/record.lua), decoded when a claim or a
// lookup reads the record back.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client.hpp"

namespace echomq {

using Headers = std::vector<std::pair<std::string, std::string>>;

// The stored form of a name ("" = none) and headers: "" when both are
// absent, else the name then "\n" key "\t" value per header. EINVAL for a
// control character or a repeated or empty key, ETOOLARGE past kJobNameMax,
// kHeadersMax or kHeadersBytesMax (the limits in cpp/types.hpp).
std::string encodeMeta(std::string_view name, const std::vector<std::pair<std::string_view, std::string_view>>& headers);

// The stored form of a job's own meta `own` (a batch entry's) over the
// call's `call` (both stored forms, checked): own's name, else call's; call's
// headers whose key own lacks, then own's. Checked again as encodeMeta does
// (together they may pass a limit). One of them "" returns the other.
std::string mergeMeta(std::string_view own, std::string_view call);

// Fills j.name and j.headers from a stored meta string ("" = none). Throws
// kProto on a malformed one (a library/script version mismatch).
void readMeta(std::string_view meta, Job& j);

}  // namespace echomq
