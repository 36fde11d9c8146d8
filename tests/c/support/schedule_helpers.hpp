// Helpers of the schedule tests (tests/c/lanes/schedules*_test.cpp, the
// Sentinel and clock-step tests): options, reads that keep their strings
// alive, the server's clock, and UTC dates.
#pragma once

#include <echomq/echomq.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace emqtest {

/// A schedule ticking every `ms`, its jobs on `lane` with payload "tick".
echomq_schedule_options every_options(int64_t ms, const char *lane);
/// A cron schedule in `zone` (NULL = UTC), jobs on `lane`, payload "tick".
echomq_schedule_options cron_options(const char *expr, const char *zone, const char *lane);

/// A schedule as read, with the list its strings live in.
struct ScheduleRead : echomq_schedule_info {
  std::shared_ptr<echomq_schedule_list> list;
};
/// Schedule `name` (asserts the call worked).
ScheduleRead get_schedule(echomq_client *c, const std::string &queue, const std::string &name);
/// Its next n ticks (asserts the call worked).
std::vector<int64_t> next_ticks(echomq_client *c, const std::string &queue, const std::string &name, size_t n);
/// Every schedule's name, read in pages of `page`.
std::vector<std::string> schedule_names(echomq_client *c, const std::string &queue, size_t page);

/// The server's clock (ms), through the queue's stats.
int64_t server_now(echomq_client *c, const std::string &queue);
/// Sleeps until the server's clock reads at least `t` (ms).
void sleep_until_server(echomq_client *c, const std::string &queue, int64_t t);
/// Ms since the epoch of a UTC date.
int64_t utc_ms(int y, int mo, int d, int h, int mi, int s);
/// A whole repair (apply) of the queue, in steps; returns every change line.
std::vector<std::string> repair_all(echomq_client *c, const std::string &queue);

}  // namespace emqtest
