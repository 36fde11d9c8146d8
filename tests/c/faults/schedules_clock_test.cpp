// Schedules when the server's wall clock steps an hour (the LD_PRELOAD shim
// of clock_shift.c). What docs/operations.md ("Periodic jobs") states:
//  - forward: the ticks of the hour skipped are missed ticks, handled as the
//    missed-tick policy says (fire once: one job, for the latest of them);
//    the schedule then goes on from its next tick after the new time;
//  - back: a tick at or before the latest one handled never fires again, so
//    the schedule waits until the clock passes that tick once more; a
//    schedule made again over the same grid skips the ticks it finds already
//    fired (their idempotency keys), as "duplicate".
#include "clock_shim.hpp"
#include "raw_valkey.hpp"
#include "schedule_helpers.hpp"
#include "test_env.hpp"

#include <fstream>
#include <map>
#include <set>
#include <vector>

using namespace emqtest;

namespace {

// Claims and acks every job ready now; returns how many per lane.
std::map<std::string, int> drain(echomq_client *c, const std::string &q) {
  std::map<std::string, int> n;
  while (JobPtr j = claim(c, q, 60000)) {
    ++n[echomq_job_group(j.get())];
    ack(c, q, j.get());
  }
  return n;
}

// As drain, with the tick of each job claimed (its schedule's tick time),
// in the order claimed.
std::map<std::string, std::vector<int64_t>> drain_ticks(echomq_client *c, const std::string &q) {
  std::map<std::string, std::vector<int64_t>> ticks;
  while (JobPtr j = claim(c, q, 60000)) {
    JobPtr looked = get_job(c, q, echomq_job_id(j.get()));
    ticks[echomq_job_group(j.get())].push_back(echomq_job_tick_ms(looked.get()));
    ack(c, q, j.get());
  }
  return ticks;
}

// How many of ticks are at or before t.
size_t at_or_before(const std::vector<int64_t> &ticks, int64_t t) {
  size_t n = 0;
  for (int64_t x : ticks) n += x <= t;
  return n;
}

}  // namespace

TEST_CASE("schedules when the server's clock steps an hour forward and back", "[faults][schedules]") {
  PrivateServer server(free_port());
  const std::string shift = server.dir() + "/clock-shift";
  start_with_clock_shim(shift, [&] { server.start(); });
  ClientPtr c = connect_client(nullptr, server.url());
  const std::string q = fresh_queue("sched-clock");
  EMQ_REQUIRE_OK(c.get(), echomq_set_events(c.get(), q.c_str(), 100000, 0));
  const int64_t start = server_now(c.get(), q) + 100;
  echomq_schedule_options every = every_options(100, "every");
  every.start_at_ms = start;
  echomq_schedule_options cron = cron_options("* * * * * *", nullptr, "cron");  // every second
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "every", &every, nullptr, nullptr));
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "cron", &cron, nullptr, nullptr));
  while (server_now(c.get(), q) < start + 1050) {
    drain(c.get(), q);
    sleep_ms(30);
  }
  drain(c.get(), q);
  auto e0 = get_schedule(c.get(), q, "every");
  auto c0 = get_schedule(c.get(), q, "cron");
  CHECK(e0.runs >= 10);
  CHECK(c0.runs >= 1);

  // Forward an hour: one job each for the hour's ticks (fire once), then on.
  // A tick that falls due while the drain runs (every 100 ms) is the
  // schedule going on, not the hour: of the ticks fired, at most one is at
  // or before the drain's start, and it is the first.
  shift_clock(shift, 3600000);
  const int64_t stepped = server_now(c.get(), q);
  auto fwd = drain_ticks(c.get(), q);
  INFO("every's ticks after the step: " << fwd["every"].size() << ", drain began at " << stepped);
  REQUIRE(!fwd["every"].empty());
  REQUIRE(!fwd["cron"].empty());
  CHECK(at_or_before(fwd["every"], stepped) <= 1);
  CHECK(at_or_before(fwd["cron"], stepped) <= 1);
  CHECK(at_or_before({fwd["every"].begin() + 1, fwd["every"].end()}, stepped) == 0);
  CHECK(at_or_before({fwd["cron"].begin() + 1, fwd["cron"].end()}, stepped) == 0);
  CHECK(fwd["every"].size() <= 3);  // the catch-up and what the drain's own time brings
  auto e1 = get_schedule(c.get(), q, "every");
  auto c1 = get_schedule(c.get(), q, "cron");
  CHECK(e1.runs == e0.runs + fwd["every"].size());
  CHECK(e1.skips >= e0.skips + 35000);  // the hour's ticks, counted as skipped
  CHECK(e1.last_tick_ms >= e0.last_tick_ms + 3600000 - 100);
  CHECK((e1.last_tick_ms - start) % 100 == 0);  // still on its grid
  CHECK(c1.runs == c0.runs + fwd["cron"].size());
  CHECK(c1.last_tick_ms >= c0.last_tick_ms + 3600000 - 1000);
  sleep_ms(250);
  auto on = drain(c.get(), q);
  CHECK(on["every"] >= 1);  // it goes on

  // Back an hour (to the true time): nothing fires until the clock passes
  // the latest tick handled again.
  auto e2 = get_schedule(c.get(), q, "every");
  shift_clock(shift, 0);
  for (int i = 0; i < 5; ++i) {
    sleep_ms(100);
    auto back = drain(c.get(), q);
    CHECK(back["every"] == 0);
    CHECK(back["cron"] == 0);
  }
  auto e3 = get_schedule(c.get(), q, "every");
  CHECK(e3.runs == e2.runs);
  CHECK(e3.next_at_ms == e2.next_at_ms);  // still after its latest tick
  auto ahead = next_ticks(c.get(), q, "every", 1);
  REQUIRE(ahead.size() == 1);
  CHECK(ahead[0] > e2.last_tick_ms);

  // Made again over the same grid (removed, then upserted with its start)
  // with the clock just before the ticks the first one fired after the
  // forward step: those ticks are found already fired (their keys are
  // held) and skipped as duplicates; the ones between are new instants.
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_remove(c.get(), q.c_str(), "every"));
  const int64_t now0 = server_now(c.get(), q);
  shift_clock(shift, e1.last_tick_ms - now0 - 150);
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "every", &every, nullptr, nullptr));
  for (int i = 0; i < 8; ++i) {
    sleep_ms(50);
    drain(c.get(), q);
  }
  shift_clock(shift, 0);

  // No tick instant ever fired twice, by any of them.
  std::map<std::string, std::set<int64_t>> fired;
  echomq_event_list *raw = nullptr;
  std::string after = "0";
  size_t duplicates = 0;
  for (;;) {
    EMQ_REQUIRE_OK(c.get(), echomq_events_read(c.get(), q.c_str(), after.c_str(), 1000, 0, &raw));
    EventListPtr l(raw);
    if (echomq_event_list_count(l.get()) == 0) break;
    for (size_t i = 0; i < echomq_event_list_count(l.get()); ++i) {
      std::map<std::string, std::string> f;
      for (size_t k = 0; k < echomq_event_list_nfields(l.get(), i); ++k)
        f[echomq_event_list_name(l.get(), i, k)] = echomq_event_list_value(l.get(), i, k, nullptr);
      if (f["type"] == "fired") {
        INFO(f["schedule"] << " tick " << f["tick"]);
        CHECK(fired[f["schedule"]].insert(std::stoll(f["tick"])).second);
      }
      if (f["type"] == "skipped" && f["reason"] == "duplicate") ++duplicates;
      after = echomq_event_list_id(l.get(), i);
    }
  }
  CHECK(duplicates >= 1);
  require_verified(c.get(), q);
}
