#include "schedule_helpers.hpp"

#include <catch2/catch.hpp>

#include <ctime>

#include "test_env.hpp"

namespace emqtest {

echomq_schedule_options every_options(int64_t ms, const char *lane) {
  echomq_schedule_options o = ECHOMQ_SCHEDULE_OPTIONS_INIT;
  o.every_ms = ms;
  o.lane = lane;
  o.payload = "tick";
  o.payload_len = 4;
  return o;
}

echomq_schedule_options cron_options(const char *expr, const char *zone, const char *lane) {
  echomq_schedule_options o = every_options(0, lane);
  o.cron = expr;
  o.zone = zone;
  return o;
}

ScheduleRead get_schedule(echomq_client *c, const std::string &queue, const std::string &name) {
  echomq_schedule_list *raw = nullptr;
  EMQ_REQUIRE_OK(c, echomq_schedule_get(c, queue.c_str(), name.c_str(), &raw));
  REQUIRE(echomq_schedule_list_count(raw) == 1);
  ScheduleRead r;
  static_cast<echomq_schedule_info &>(r) = *echomq_schedule_list_at(raw, 0);
  r.list.reset(raw, echomq_schedule_list_free);
  return r;
}

std::vector<int64_t> next_ticks(echomq_client *c, const std::string &queue, const std::string &name, size_t n) {
  std::vector<int64_t> t(n);
  size_t got = 0;
  EMQ_REQUIRE_OK(c, echomq_schedule_next(c, queue.c_str(), name.c_str(), n, t.data(), &got));
  t.resize(got);
  return t;
}

std::vector<std::string> schedule_names(echomq_client *c, const std::string &queue, size_t page) {
  std::vector<std::string> names;
  std::string after;
  for (;;) {
    echomq_schedule_list *raw = nullptr;
    EMQ_REQUIRE_OK(c, echomq_schedules(c, queue.c_str(), after.c_str(), page, &raw));
    echomq::ScheduleListPtr l(raw);
    for (size_t i = 0; i < echomq_schedule_list_count(l.get()); ++i)
      names.push_back(echomq_schedule_list_at(l.get(), i)->name);
    const char *next = echomq_schedule_list_next(l.get());
    if (!next) return names;
    after = next;
  }
}

int64_t server_now(echomq_client *c, const std::string &queue) { return stats(c, queue).server_time_ms; }

void sleep_until_server(echomq_client *c, const std::string &queue, int64_t t) {
  for (;;) {
    int64_t now = server_now(c, queue);
    if (now >= t) return;
    sleep_ms(t - now);
  }
}

int64_t utc_ms(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

std::vector<std::string> repair_all(echomq_client *c, const std::string &queue) {
  std::vector<std::string> lines;
  std::string cursor;
  for (int steps = 0; steps < 1000; ++steps) {
    echomq_report *raw = nullptr;
    EMQ_REQUIRE_OK(c, echomq_repair(c, queue.c_str(), 1, cursor.c_str(), 1000, &raw));
    ReportPtr r(raw);
    for (size_t i = 0; i < echomq_report_count(r.get()); ++i) lines.push_back(echomq_report_at(r.get(), i));
    const char *next = echomq_report_cursor(r.get());
    if (!next) return lines;
    cursor = next;
  }
  FAIL("repair did not finish");
  return lines;
}

}  // namespace emqtest
