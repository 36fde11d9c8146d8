// Checks of a schedule's name and spec, before any I/O (cpp/schedules.cpp).
#pragma once

#include <cstddef>

#include "types.hpp"

namespace echomq {

// 1..kScheduleNameMax bytes of [A-Za-z0-9_.:-]; EINVAL otherwise.
void checkScheduleName(const char* name);
// Every field in range (EINVAL; ETOOLARGE for a payload over max_payload).
// The cron expression and the zone are checked when they are read
// (cpp/cron.cpp, cpp/tz.cpp).
void checkScheduleSpec(const ScheduleSpec& s, size_t max_payload);

}  // namespace echomq
