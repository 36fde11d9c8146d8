// RAII for hiredis replies and contexts, and small reply readers.
#pragma once

#include <cstdint>
#include <string>

#include "hiredis_ptr.hpp"

namespace echomq {

// Readers for elements of a script's reply array; throw EPROTO on a shape
// the scripts never produce (a library/script version mismatch).
int64_t replyInt(const redisReply* r, const char* what);
std::string replyStr(const redisReply* r, const char* what);
const redisReply* replyAt(const redisReply* arr, size_t i, const char* what);

}  // namespace echomq
