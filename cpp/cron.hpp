// Cron expressions of schedules (capi/include/echomq/schedules.h): parsed
// and checked here, before any I/O, into the canonical form the scripts
// compute ticks from (lua/includes/ticks.lua). The ticks themselves are
// computed only there.
#pragma once

#include <string>

namespace echomq {

// The canonical form of a cron expression: six fields "sec min hour dom mon
// dow", each "*" (every value) or an ascending comma list of values, led by
// '*' when the field was written from '*' (a step such as "*/15": it then
// counts as '*' for the rule that joins day-of-month and day-of-week).
// Throws EINVAL naming the field and what is wrong with it.
std::string canonicalCron(const std::string& expr);

}  // namespace echomq
