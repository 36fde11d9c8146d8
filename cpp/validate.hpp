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
// Tenants (docs/architecture.md, "Lanes inside tenants"): "T/" (one '/',
// last) names tenant T, whose lanes are "T/<lane>". A group name is a lane's
// or a tenant's (settings, lane info); a lane name (jobs, caps, purge) is
// never a tenant's.
bool isTenantName(const char* group, size_t len);
void checkLaneName(const char* group);
void checkLaneBytes(const char* group, size_t len);
void checkRange(const char* what, long long v, long long lo, long long hi);

}  // namespace echomq
