// Input checks, all before any network I/O. Each throws EINVAL (or
// ETOOLARGE) with a message that names the argument.
#pragma once

#include <cstdint>
#include <string>

namespace echomq {

void checkQueueName(const char* queue);
void checkGroupName(const char* group);
// Group given as bytes (bindings may pass embedded NULs, which are refused).
void checkGroupBytes(const char* group, size_t len);
void checkRange(const char* what, long long v, long long lo, long long hi);

}  // namespace echomq
