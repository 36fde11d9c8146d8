// Time zones of cron schedules (capi/include/echomq/schedules.h), read
// where the zone's rules are: on the client, at upsert. The result is the
// rule string the scripts read (lua/includes/ticks.lua): the offset in
// force at the start of a window, then each change of offset in it, so
// the server computes local times with no zone database of its own.
#pragma once

#include <cstdint>
#include <string>

namespace echomq {

// The rules of `zone` for the years around now_ms (ms since the epoch):
// from the start of the year before to the start of the year
// kZoneYearsAhead after. "UTC" (also "", "Z", "GMT") and fixed offsets
// ("+05:30", "-03", "+0530", "UTC+01:00", "GMT-3") have one offset; any
// other name is an IANA zone read from the TZif file under $TZDIR or
// /usr/share/zoneinfo (its explicit transitions, then its POSIX rule for
// the years past them). Throws EINVAL for a malformed or unknown zone.
std::string zoneRules(const std::string& zone, int64_t now_ms);

constexpr int kZoneYearsAhead = 11;

}  // namespace echomq
