// Schedules (echomq/schedules.h, docs/operations.md "Periodic jobs"): the
// API, the tick arithmetic the scripts do (every grids, cron in UTC, fixed
// offsets and named zones across daylight-saving changes), bad input, the
// idempotent upsert, and what a claim fires: one job per tick, the missed-
// tick and overlap policies, limits and ends, events, verify and repair.
// Enqueue at a time is here too. Concurrency and the engines' wake-up:
// schedules_run_test.cpp.
#include "raw_valkey.hpp"
#include "schedule_helpers.hpp"
#include "test_env.hpp"

#include <cstddef>
#include <cstring>
#include <map>
#include <set>

using namespace emqtest;

TEST_CASE("a schedule is upserted, listed, read, paused, resumed and removed", "[schedules]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-api");
  echomq_schedule_options o = every_options(60000, "L");
  int changed = -1;
  int64_t next = 0;
  int64_t t0 = server_now(c.get(), q);
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "minutely", &o, &changed, &next));
  CHECK(changed == ECHOMQ_SCHEDULE_CREATED);
  // The first tick of an every grid without a start: one period after the upsert.
  CHECK(next >= t0 + 60000);
  CHECK(next <= t0 + 61000);
  auto info = get_schedule(c.get(), q, "minutely");
  CHECK(std::string(info.name) == "minutely");
  CHECK(info.every_ms == 60000);
  CHECK(std::string(info.lane) == "L");
  CHECK(std::string(info.payload, info.payload_len) == "tick");
  CHECK(info.next_at_ms == next);
  CHECK(info.paused == 0);
  CHECK(std::string(info.ended).empty());
  CHECK(info.runs == 0);
  CHECK(info.version == ECHOMQ_SCHEDULE_INFO_VERSION);

  auto ticks = next_ticks(c.get(), q, "minutely", 3);
  REQUIRE(ticks.size() == 3);
  CHECK(ticks[0] == next);
  CHECK(ticks[1] == next + 60000);
  CHECK(ticks[2] == next + 120000);

  EMQ_REQUIRE_OK(c.get(), echomq_schedule_pause(c.get(), q.c_str(), "minutely"));
  CHECK(get_schedule(c.get(), q, "minutely").paused == 1);
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_pause(c.get(), q.c_str(), "minutely"));  // twice: no change
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_resume(c.get(), q.c_str(), "minutely"));
  info = get_schedule(c.get(), q, "minutely");
  CHECK(info.paused == 0);
  CHECK(info.next_at_ms == next);  // the same grid: its first tick after now
  require_verified(c.get(), q);

  // A second schedule; the listing is by name, in pages.
  echomq_schedule_options o2 = cron_options("*/5 * * * *", "UTC", "M");
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "a-first", &o2, nullptr, nullptr));
  auto names = schedule_names(c.get(), q, 1);
  REQUIRE(names.size() == 2);
  CHECK(names[0] == "a-first");
  CHECK(names[1] == "minutely");

  EMQ_REQUIRE_OK(c.get(), echomq_schedule_remove(c.get(), q.c_str(), "minutely"));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_schedule_remove(c.get(), q.c_str(), "minutely"));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_schedule_pause(c.get(), q.c_str(), "minutely"));
  echomq_schedule_list *l = nullptr;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_schedule_get(c.get(), q.c_str(), "minutely", &l));
  CHECK(l == nullptr);
  int64_t t[2];
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_schedule_next(c.get(), q.c_str(), "minutely", 2, t, nullptr));
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_remove(c.get(), q.c_str(), "a-first"));
  CHECK(schedule_names(c.get(), q, 10).empty());
  // The last schedule gone, the claim path looks at none again.
  RawValkey raw;
  CHECK(raw.command({"HGET", "emq:{" + q + "}:config", "sched"})->type == REDIS_REPLY_NIL);
  require_verified(c.get(), q);
}

TEST_CASE("the same spec upserted again changes nothing, a changed one re-arms only for its timing",
          "[schedules]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-idem");
  echomq_schedule_options o = every_options(10000, "L");
  int changed = -1;
  int64_t first = 0, again = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "s", &o, &changed, &first));
  CHECK(changed == ECHOMQ_SCHEDULE_CREATED);
  RawValkey raw;
  const std::string key = "emq:{" + q + "}:s:s";
  auto before = raw.snapshot("emq:{" + q + "}");
  sleep_ms(20);
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "s", &o, &changed, &again));
  CHECK(changed == ECHOMQ_SCHEDULE_UNCHANGED);
  CHECK(again == first);
  CHECK(raw.snapshot("emq:{" + q + "}") == before);  // not a byte written

  // The job's payload changes: its next tick stays.
  o.payload = "other";
  o.payload_len = 5;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "s", &o, &changed, &again));
  CHECK(changed == ECHOMQ_SCHEDULE_UPDATED);
  CHECK(again == first);
  CHECK(std::string(get_schedule(c.get(), q, "s").payload) == "other");

  // Its timing changes: re-armed from now.
  int64_t t0 = server_now(c.get(), q);
  o.every_ms = 20000;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "s", &o, &changed, &again));
  CHECK(changed == ECHOMQ_SCHEDULE_UPDATED);
  CHECK(again >= t0 + 20000);
  CHECK(get_schedule(c.get(), q, "s").next_at_ms == again);
  require_verified(c.get(), q);
}

TEST_CASE("cron ticks in UTC: fields, steps, names, macros and the day rule", "[schedules][cron]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-cron");
  // Ticks from a fixed start: 2027-01-01T00:00:00Z is a Friday.
  const int64_t start = utc_ms(2027, 1, 1, 0, 0, 0);
  struct Case {
    const char *expr;
    std::vector<int64_t> want;
  };
  const Case cases[] = {
      {"0 * * * *", {start, utc_ms(2027, 1, 1, 1, 0, 0), utc_ms(2027, 1, 1, 2, 0, 0)}},
      {"*/20 9-10 * * *", {utc_ms(2027, 1, 1, 9, 0, 0), utc_ms(2027, 1, 1, 9, 20, 0), utc_ms(2027, 1, 1, 9, 40, 0),
                           utc_ms(2027, 1, 1, 10, 0, 0), utc_ms(2027, 1, 1, 10, 20, 0)}},
      // Six fields: seconds first.
      {"15,45 0 0 * * *", {utc_ms(2027, 1, 1, 0, 0, 15), utc_ms(2027, 1, 1, 0, 0, 45), utc_ms(2027, 1, 2, 0, 0, 15)}},
      // Weekdays by name: Friday the 1st, then Monday the 4th.
      {"30 8 * * MON-FRI", {utc_ms(2027, 1, 1, 8, 30, 0), utc_ms(2027, 1, 4, 8, 30, 0), utc_ms(2027, 1, 5, 8, 30, 0)}},
      // Day of month and day of week both restricted: either matches (the 13th, or a Sunday).
      {"0 0 13 * 0", {utc_ms(2027, 1, 3, 0, 0, 0), utc_ms(2027, 1, 10, 0, 0, 0), utc_ms(2027, 1, 13, 0, 0, 0),
                      utc_ms(2027, 1, 17, 0, 0, 0)}},
      // ... but with '*' in either, both must match: Sundays of February only.
      {"0 0 * feb 7", {utc_ms(2027, 2, 7, 0, 0, 0), utc_ms(2027, 2, 14, 0, 0, 0), utc_ms(2027, 2, 21, 0, 0, 0)}},
      {"@monthly", {start, utc_ms(2027, 2, 1, 0, 0, 0), utc_ms(2027, 3, 1, 0, 0, 0)}},
      // February 29th: the next leap year.
      {"0 12 29 2 *", {utc_ms(2028, 2, 29, 12, 0, 0), utc_ms(2032, 2, 29, 12, 0, 0)}},
  };
  int i = 0;
  for (const Case &k : cases) {
    INFO(k.expr);
    echomq_schedule_options o = cron_options(k.expr, nullptr, "L");
    o.start_at_ms = start;
    const std::string name = "c" + std::to_string(i++);
    EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), name.c_str(), &o, nullptr, nullptr));
    CHECK(next_ticks(c.get(), q, name, k.want.size()) == k.want);
  }
}

TEST_CASE("cron in a fixed offset and in named zones, across daylight-saving changes", "[schedules][cron][zones]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-tz");
  auto ticks = [&](const char *name, const char *expr, const char *zone, int64_t from, size_t n) {
    echomq_schedule_options o = cron_options(expr, zone, "L");
    o.start_at_ms = from;
    EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), name, &o, nullptr, nullptr));
    return next_ticks(c.get(), q, name, n);
  };
  // 09:00 at +05:30 is 03:30 UTC; at -03, 12:00 UTC.
  CHECK(ticks("ist", "0 9 * * *", "+05:30", utc_ms(2027, 1, 1, 0, 0, 0), 2) ==
        std::vector<int64_t>{utc_ms(2027, 1, 1, 3, 30, 0), utc_ms(2027, 1, 2, 3, 30, 0)});
  CHECK(ticks("brt", "0 9 * * *", "UTC-03", utc_ms(2027, 1, 1, 0, 0, 0), 1) ==
        std::vector<int64_t>{utc_ms(2027, 1, 1, 12, 0, 0)});
  CHECK(ticks("kolkata", "0 9 * * *", "Asia/Kolkata", utc_ms(2027, 1, 1, 0, 0, 0), 1) ==
        std::vector<int64_t>{utc_ms(2027, 1, 1, 3, 30, 0)});

  // Paris, spring forward on 2027-03-28: 02:00 CET becomes 03:00 CEST (01:00 UTC).
  // A daily 02:30 does not exist that day: it fires at 03:30 CEST (01:30 UTC),
  // one hour after 01:30 CET (RFC 5545); the days around are 02:30 local.
  CHECK(ticks("paris-gap", "30 2 * * *", "Europe/Paris", utc_ms(2027, 3, 27, 0, 0, 0), 3) ==
        std::vector<int64_t>{utc_ms(2027, 3, 27, 1, 30, 0), utc_ms(2027, 3, 28, 1, 30, 0),
                             utc_ms(2027, 3, 29, 0, 30, 0)});
  // Every 30 minutes through the gap: 01:30 CET, then 03:00 CEST (the gap's
  // 02:00 and 02:30 map onto 03:00 and 03:30 and coincide with them: once each).
  CHECK(ticks("paris-gap-30", "*/30 * * * *", "Europe/Paris", utc_ms(2027, 3, 28, 0, 15, 0), 4) ==
        std::vector<int64_t>{utc_ms(2027, 3, 28, 0, 30, 0), utc_ms(2027, 3, 28, 1, 0, 0),
                             utc_ms(2027, 3, 28, 1, 30, 0), utc_ms(2027, 3, 28, 2, 0, 0)});
  // Fall back on 2027-10-31: 03:00 CEST becomes 02:00 CET (01:00 UTC), so
  // 02:00-03:00 happens twice. A daily 02:30 fires once, at the first (00:30 UTC).
  CHECK(ticks("paris-repeat", "30 2 * * *", "Europe/Paris", utc_ms(2027, 10, 30, 0, 0, 0), 3) ==
        std::vector<int64_t>{utc_ms(2027, 10, 30, 0, 30, 0), utc_ms(2027, 10, 31, 0, 30, 0),
                             utc_ms(2027, 11, 1, 1, 30, 0)});
  // Hourly through the repeated hour: 02:00 CEST, 03:00 CET; the second 02:00 is not a new tick.
  CHECK(ticks("paris-repeat-h", "0 * * * *", "Europe/Paris", utc_ms(2027, 10, 30, 23, 30, 0), 4) ==
        std::vector<int64_t>{utc_ms(2027, 10, 31, 0, 0, 0), utc_ms(2027, 10, 31, 2, 0, 0),
                             utc_ms(2027, 10, 31, 3, 0, 0), utc_ms(2027, 10, 31, 4, 0, 0)});
  // New York (other dates: 2027-03-14 and 2027-11-07) at 09:00: 14:00 UTC in
  // winter, 13:00 UTC in summer.
  CHECK(ticks("ny", "0 9 * * *", "America/New_York", utc_ms(2027, 3, 13, 0, 0, 0), 2) ==
        std::vector<int64_t>{utc_ms(2027, 3, 13, 14, 0, 0), utc_ms(2027, 3, 14, 13, 0, 0)});
  CHECK(ticks("ny-fall", "0 9 * * *", "America/New_York", utc_ms(2027, 11, 6, 0, 0, 0), 2) ==
        std::vector<int64_t>{utc_ms(2027, 11, 6, 13, 0, 0), utc_ms(2027, 11, 7, 14, 0, 0)});
  // Southern hemisphere: Sydney leaves daylight time on 2027-04-04 (+11 -> +10).
  CHECK(ticks("syd", "0 12 * * *", "Australia/Sydney", utc_ms(2027, 4, 3, 0, 0, 0), 2) ==
        std::vector<int64_t>{utc_ms(2027, 4, 3, 1, 0, 0), utc_ms(2027, 4, 4, 2, 0, 0)});
  // Far ahead: the zone's rule, not its table (2036 lies past many files' data).
  CHECK(ticks("paris-2036", "0 12 1 7 *", "Europe/Paris", utc_ms(2036, 1, 1, 0, 0, 0), 1) ==
        std::vector<int64_t>{utc_ms(2036, 7, 1, 10, 0, 0)});
  require_verified(c.get(), q);
}

TEST_CASE("bad schedules are refused with a clear error and nothing is written", "[schedules][badinput]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-bad");
  RawValkey raw;
  enqueue(c.get(), q, "L", "x");  // the queue exists
  auto before = raw.snapshot("emq:{" + q + "}");
  struct Case {
    std::string what;
    echomq_schedule_options o;
    const char *name;
    const char *says;
  };
  auto cron = [](const char *e, const char *z = nullptr) { return cron_options(e, z, "L"); };
  echomq_schedule_options both = every_options(1000, "L");
  both.cron = "* * * * *";
  echomq_schedule_options neither = every_options(1000, "L");
  neither.every_ms = 0;
  echomq_schedule_options backwards = every_options(1000, "L");
  backwards.start_at_ms = 2000;
  backwards.end_at_ms = 1000;
  echomq_schedule_options nolane = every_options(1000, "L");
  nolane.lane = nullptr;
  echomq_schedule_options tenant = every_options(1000, "T/");
  echomq_schedule_options ctl = every_options(1000, "a\x01");
  echomq_schedule_options far = every_options(ECHOMQ_SCHEDULE_EVERY_MAX_MS + 1, "L");
  echomq_schedule_options missed = every_options(1000, "L");
  missed.missed = 7;
  echomq_schedule_options version = every_options(1000, "L");
  version.version = 99;
  echomq_schedule_options zoned = every_options(1000, "L");
  zoned.zone = "Europe/Paris";
  const std::vector<Case> cases = {
      {"every 0", neither, "s", "exactly one of every_ms and cron"},
      {"both", both, "s", "exactly one of every_ms and cron"},
      {"every too long", far, "s", "every_ms"},
      {"bad minute", cron("61 * * * *"), "s", "minute field '61': 61 is out of range 0-59"},
      {"bad hour", cron("0 2x * * *"), "s", "hour field"},
      {"bad dom", cron("0 0 0 * *"), "s", "day-of-month field"},
      {"bad month name", cron("0 0 1 foo *"), "s", "month field 'foo': unknown name"},
      {"bad dow", cron("0 0 * * 8"), "s", "day-of-week field"},
      {"backwards range", cron("0 5-3 * * *"), "s", "hour field '5-3': range 5-3 runs backwards"},
      {"bad step", cron("*/0 * * * *"), "s", "minute field '*/0': a step must be at least 1"},
      {"too few fields", cron("* * *"), "s", "has 3 fields"},
      {"unknown macro", cron("@sometimes"), "s", "unknown macro"},
      {"unknown zone", cron("* * * * *", "Mars/Olympus"), "s", "unknown zone"},
      {"bad zone", cron("* * * * *", "../etc/passwd"), "s", "not a zone name"},
      {"offset too large", cron("* * * * *", "+19:00"), "s", "not a zone name"},
      {"zone without cron", zoned, "s", "a zone goes with a cron schedule only"},
      {"end before start", backwards, "s", "end_at_ms is not after start_at_ms"},
      {"no lane", nolane, "s", "lane is NULL"},
      {"a tenant's name", tenant, "s", ""},
      {"a control character", ctl, "s", ""},
      {"missed policy", missed, "s", "missed"},
      {"options version", version, "s", "unknown version"},
      {"empty name", every_options(1000, "L"), "", "schedule name must be"},
      {"bad name", every_options(1000, "L"), "a b", "outside [A-Za-z0-9_.:-]"},
      {"long name", every_options(1000, "L"), nullptr, "schedule name must be"},
  };
  const std::string longName(ECHOMQ_SCHEDULE_NAME_MAX + 1, 'n');
  for (const Case &k : cases) {
    INFO(k.what);
    int rc = echomq_schedule_upsert(c.get(), q.c_str(), k.name ? k.name : longName.c_str(), &k.o, nullptr, nullptr);
    INFO(describe(c.get(), rc));
    CHECK(rc == ECHOMQ_EINVAL);
    CHECK(std::string(echomq_client_errmsg(c.get())).find(k.says) != std::string::npos);
  }
  // Checked by the server, before its first write: a date that never comes,
  // an end already past.
  echomq_schedule_options never = cron("0 0 30 2 *");
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_schedule_upsert(c.get(), q.c_str(), "s", &never, nullptr, nullptr));
  CHECK(std::string(echomq_client_errmsg(c.get())).find("never fires") != std::string::npos);
  echomq_schedule_options past = every_options(1000, "L");
  past.start_at_ms = 1000;
  past.end_at_ms = 2000;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_schedule_upsert(c.get(), q.c_str(), "s", &past, nullptr, nullptr));
  CHECK(std::string(echomq_client_errmsg(c.get())).find("never fires") != std::string::npos);
  CHECK(raw.snapshot("emq:{" + q + "}") == before);
  echomq_schedule_options init;
  CHECK(echomq_schedule_options_init(&init, 99) == ECHOMQ_EINVAL);
  CHECK(echomq_schedule_options_init(nullptr, ECHOMQ_SCHEDULE_OPTIONS_VERSION) == ECHOMQ_EINVAL);
  REQUIRE(echomq_schedule_options_init(&init, ECHOMQ_SCHEDULE_OPTIONS_VERSION) == ECHOMQ_OK);
  CHECK(init.version == ECHOMQ_SCHEDULE_OPTIONS_VERSION);
  CHECK(init.every_ms == 0);
  CHECK(init.lane == nullptr);
}

TEST_CASE("a claim fires a due tick: one job on its lane that names its schedule and tick", "[schedules][fire]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-fire");
  echomq_schedule_options o = every_options(200, "T/lane");
  o.max_attempts = 7;
  int64_t next = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "fast", &o, nullptr, &next));
  CHECK(claim(c.get(), q, 30000) == nullptr);  // not due yet: a claim finds nothing
  sleep_until_server(c.get(), q, next + 5);
  JobPtr j = claim(c.get(), q, 30000);
  REQUIRE(j);
  CHECK(std::string(echomq_job_group(j.get())) == "T/lane");
  CHECK(payload_of(j.get()) == "tick");
  CHECK(echomq_job_max_attempts(j.get()) == 7);
  JobPtr looked = get_job(c.get(), q, echomq_job_id(j.get()));
  size_t len = 0;
  CHECK(std::string(echomq_job_schedule(looked.get(), &len)) == "fast");
  CHECK(len == 4);
  CHECK(echomq_job_tick_ms(looked.get()) == next);
  // The tick's idempotency key: an enqueue with it is a duplicate of the job.
  echomq_enqueue_options e = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  const std::string key = "sched:fast:" + std::to_string(next);
  e.idempotency_key = key.c_str();
  uint64_t id = 0;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_DUPLICATE,
                     echomq_enqueue(c.get(), q.c_str(), "T/lane", "x", 1, &e, &id));
  CHECK(id == echomq_job_id(j.get()));
  auto info = get_schedule(c.get(), q, "fast");
  CHECK(info.runs == 1);
  CHECK(info.fired_tick_ms == next);
  CHECK(info.fired_job == echomq_job_id(j.get()));
  CHECK(info.fired_state == ECHOMQ_JOB_LEASED);
  CHECK(info.fired_at_ms >= next);
  CHECK(info.next_at_ms == next + 200);
  // A job on an ordinary lane never names a schedule.
  uint64_t plain = enqueue(c.get(), q, "other", "p");
  JobPtr p = get_job(c.get(), q, plain);
  CHECK(std::string(echomq_job_schedule(p.get(), nullptr)).empty());
  CHECK(echomq_job_tick_ms(p.get()) == 0);
  ack(c.get(), q, j.get());
  CHECK(get_schedule(c.get(), q, "fast").fired_state == 0);
  require_verified(c.get(), q);
}

TEST_CASE("the missed-tick policy after ten ticks nobody claimed", "[schedules][missed]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-missed");
  echomq_schedule_options once = every_options(50, "once");
  echomq_schedule_options skip = every_options(50, "skip");
  skip.missed = ECHOMQ_MISSED_SKIP;
  skip.grace_ms = 1;
  int64_t n1 = 0, n2 = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "once", &once, nullptr, &n1));
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "skip", &skip, nullptr, &n2));
  // The workers are down for ten ticks and more.
  sleep_until_server(c.get(), q, std::max(n1, n2) + 10 * 50 + 20);
  std::map<std::string, int> jobs;
  while (JobPtr j = claim(c.get(), q, 30000)) {
    ++jobs[echomq_job_group(j.get())];
    ack(c.get(), q, j.get());
  }
  // Fire once: one job for all the due ticks, for the latest of them.
  auto a = get_schedule(c.get(), q, "once");
  CHECK(jobs["once"] == 1);
  CHECK(a.runs == 1);
  CHECK(a.skips >= 10);
  CHECK(a.fired_tick_ms == a.last_tick_ms);
  CHECK(a.last_tick_ms >= n1 + 10 * 50);
  CHECK((a.last_tick_ms - n1) % 50 == 0);
  CHECK(a.next_at_ms == a.last_tick_ms + 50);
  // Skip: the latest tick was more than its grace (1 ms) late unless the
  // claim came within it; every other tick is skipped.
  auto b = get_schedule(c.get(), q, "skip");
  const bool onTime = b.updated_at_ms - b.last_tick_ms <= 1;
  CHECK(jobs["skip"] == (onTime ? 1 : 0));
  CHECK(b.runs == (onTime ? 1u : 0u));
  CHECK(b.runs + b.skips == static_cast<uint64_t>((b.last_tick_ms - n2) / 50 + 1));
  CHECK(b.next_at_ms == b.last_tick_ms + 50);
  require_verified(c.get(), q);
}

TEST_CASE("the overlap policy skips ticks while the last tick's job waits or runs", "[schedules][overlap]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-overlap");
  echomq_schedule_options skip = every_options(40, "skip");
  skip.overlap = ECHOMQ_OVERLAP_SKIP;
  echomq_schedule_options fire = every_options(40, "fire");
  int64_t n = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "skip", &skip, nullptr, &n));
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "fire", &fire, nullptr, nullptr));
  sleep_until_server(c.get(), q, n + 5);
  // The first tick's job of "skip" is claimed and held (running).
  JobPtr held;
  std::vector<JobPtr> others;
  while (JobPtr j = claim(c.get(), q, 30000)) {
    if (std::string(echomq_job_group(j.get())) == "skip" && !held) held = std::move(j);
    else others.push_back(std::move(j));
  }
  REQUIRE(held);
  // Five more ticks: "skip" fires none while its job runs, "fire" fires each.
  for (int i = 0; i < 5; ++i) {
    sleep_ms(45);
    while (JobPtr j = claim(c.get(), q, 30000)) {
      CHECK(std::string(echomq_job_group(j.get())) == "fire");
      others.push_back(std::move(j));
    }
  }
  auto s = get_schedule(c.get(), q, "skip");
  CHECK(s.runs == 1);
  CHECK(s.skips >= 4);
  CHECK(get_schedule(c.get(), q, "fire").runs >= 5);
  // Once its job is done, the next tick fires.
  ack(c.get(), q, held.get());
  sleep_ms(45);
  bool fired = false;
  while (JobPtr j = claim(c.get(), q, 30000)) fired = fired || std::string(echomq_job_group(j.get())) == "skip";
  CHECK(fired);
  CHECK(get_schedule(c.get(), q, "skip").runs == 2);
}

TEST_CASE("a limit of runs and an end time end a schedule", "[schedules][life]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-life");
  echomq_schedule_options lim = every_options(30, "L");
  lim.limit = 3;
  int64_t n = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "three", &lim, nullptr, &n));
  auto ahead = next_ticks(c.get(), q, "three", 10);
  CHECK(ahead.size() == 3);  // the limit bounds "next" too
  int jobs = 0;
  for (int i = 0; i < 8; ++i) {
    sleep_ms(35);
    while (JobPtr j = claim(c.get(), q, 30000)) {
      ++jobs;
      ack(c.get(), q, j.get());
    }
  }
  CHECK(jobs == 3);
  auto s = get_schedule(c.get(), q, "three");
  CHECK(s.runs == 3);
  CHECK(std::string(s.ended) == "limit");
  CHECK(s.next_at_ms == 0);
  CHECK(next_ticks(c.get(), q, "three", 5).empty());
  // Raising the limit brings it back.
  lim.limit = 4;
  int64_t again = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "three", &lim, nullptr, &again));
  CHECK(again > 0);
  CHECK(std::string(get_schedule(c.get(), q, "three").ended).empty());

  echomq_schedule_options end = every_options(30, "E");
  int64_t now = server_now(c.get(), q);
  end.start_at_ms = now + 30;
  end.end_at_ms = now + 100;  // ticks at +30, +60, +90
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "ends", &end, nullptr, nullptr));
  CHECK(next_ticks(c.get(), q, "ends", 10).size() == 3);
  int ends = 0;
  for (int i = 0; i < 8; ++i) {
    sleep_ms(35);
    while (JobPtr j = claim(c.get(), q, 30000)) {
      ends += std::string(echomq_job_group(j.get())) == "E";
      ack(c.get(), q, j.get());
    }
  }
  // Each of the three ticks fired or, when a loaded machine let two fall due
  // before a claim, was counted as missed (one fire for both): none after
  // the end.
  auto e = get_schedule(c.get(), q, "ends");
  CHECK(ends == static_cast<int>(e.runs));
  CHECK(e.runs >= 1);
  CHECK(e.runs + e.skips == 3);
  CHECK(std::string(e.ended) == "end");
  require_verified(c.get(), q);
}

TEST_CASE("fired and skipped ticks are events on the queue's stream", "[schedules][events]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-events");
  EMQ_REQUIRE_OK(c.get(), echomq_set_events(c.get(), q.c_str(), 1000, 0));
  echomq_schedule_options o = every_options(40, "L");
  o.overlap = ECHOMQ_OVERLAP_SKIP;
  int64_t n = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "ev", &o, nullptr, &n));
  sleep_until_server(c.get(), q, n + 5);
  JobPtr held = claim(c.get(), q, 30000);
  REQUIRE(held);
  sleep_ms(45);
  CHECK(claim(c.get(), q, 30000) == nullptr);  // skipped: the first still runs
  echomq_event_list *raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_events_read(c.get(), q.c_str(), "0", 100, 0, &raw));
  EventListPtr events(raw);
  std::map<std::string, std::map<std::string, std::string>> byType;
  for (size_t i = 0; i < echomq_event_list_count(events.get()); ++i) {
    std::map<std::string, std::string> f;
    for (size_t k = 0; k < echomq_event_list_nfields(events.get(), i); ++k)
      f[echomq_event_list_name(events.get(), i, k)] = echomq_event_list_value(events.get(), i, k, nullptr);
    byType[f["type"]] = f;
  }
  REQUIRE(byType.count("fired"));
  CHECK(byType["fired"]["schedule"] == "ev");
  CHECK(byType["fired"]["tick"] == std::to_string(n));
  CHECK(byType["fired"]["id"] == std::to_string(echomq_job_id(held.get())));
  CHECK(byType["fired"]["lane"] == "L");
  CHECK(std::stoll(byType["fired"]["late"]) >= 0);
  REQUIRE(byType.count("skipped"));
  CHECK(byType["skipped"]["schedule"] == "ev");
  CHECK(byType["skipped"]["reason"] == "overlap");
  CHECK(byType["skipped"]["count"] == "1");
}

TEST_CASE("verify reports the schedules' keys out of step and repair mends them", "[schedules][verify]") {
  auto c = connect_client();
  const std::string q = fresh_queue("sched-verify");
  RawValkey raw;
  const std::string p = "emq:{" + q + "}:";
  echomq_schedule_options o = every_options(600000, "L");
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "a", &o, nullptr, nullptr));
  EMQ_REQUIRE_OK(c.get(), echomq_schedule_upsert(c.get(), q.c_str(), "b", &o, nullptr, nullptr));
  require_verified(c.get(), q);
  raw.must({"ZREM", p + "sdue", "a"});            // armed but not due
  raw.must({"ZADD", p + "sdue", "5", "b"});       // due at another time than its next tick
  raw.must({"ZADD", p + "sdue", "5", "ghost"});   // no such schedule
  raw.must({"ZREM", p + "sdir", "b"});            // a hash not listed
  raw.must({"HDEL", p + "config", "sched"});      // the earliest tick unknown
  auto lines = violations(c.get(), q);
  auto has = [&](const std::string &s) {
    for (const auto &l : lines)
      if (l.find(s) != std::string::npos) return true;
    return false;
  };
  INFO([&] { std::string all; for (auto &l : lines) all += l + "\n"; return all; }());
  CHECK(has("schedule: a is armed but not in sdue"));
  CHECK(has("schedule: b has a hash but is not listed in sdir"));
  CHECK(has("schedule: sdue holds ghost"));
  CHECK(has("config sched is absent"));
  CHECK(repair_all(c.get(), q).size() >= 4);
  require_verified(c.get(), q);
  CHECK(repair_all(c.get(), q).empty());
  CHECK(get_schedule(c.get(), q, "b").next_at_ms > 0);
}

TEST_CASE("enqueue at a time, read against the server's clock", "[schedules][at]") {
  auto c = connect_client();
  const std::string q = fresh_queue("at");
  const int64_t now = server_now(c.get(), q);
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.at_ms = now - 60000;  // past: due at once
  uint64_t past = enqueue(c.get(), q, "L", "past", &o);
  CHECK(echomq_job_state_of(get_job(c.get(), q, past).get()) == ECHOMQ_JOB_PENDING);
  o.at_ms = now + 300;
  uint64_t later = enqueue(c.get(), q, "L", "later", &o);
  JobPtr d = get_job(c.get(), q, later);
  CHECK(echomq_job_state_of(d.get()) == ECHOMQ_JOB_DELAYED);
  CHECK(echomq_job_due_at_ms(d.get()) == now + 300);
  JobPtr first = claim(c.get(), q, 30000);
  REQUIRE(first);
  CHECK(echomq_job_id(first.get()) == past);
  CHECK(claim(c.get(), q, 30000) == nullptr);
  sleep_until_server(c.get(), q, now + 310);
  JobPtr second = claim(c.get(), q, 30000);
  REQUIRE(second);
  CHECK(echomq_job_id(second.get()) == later);
  // Too far ahead: refused by the server, nothing written.
  RawValkey raw;
  auto before = raw.snapshot("emq:{" + q + "}");
  o.at_ms = now + ECHOMQ_DELAY_MAX_MS + 60000;
  uint64_t id = 0;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue(c.get(), q.c_str(), "L", "x", 1, &o, &id));
  CHECK(raw.snapshot("emq:{" + q + "}") == before);
  // With a delay too: refused before any I/O.
  o.at_ms = now;
  o.delay_ms = 10;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue(c.get(), q.c_str(), "L", "x", 1, &o, &id));
  o.delay_ms = 0;
  o.at_ms = -5;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue(c.get(), q.c_str(), "L", "x", 1, &o, &id));
  // A batch takes it too.
  BatchPtr b(echomq_batch_create());
  REQUIRE(echomq_batch_add(b.get(), "L", "b", 1) == ECHOMQ_OK);
  o.at_ms = now + 600000;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), b.get(), &o));
  CHECK(echomq_job_due_at_ms(get_job(c.get(), q, echomq_batch_id(b.get(), 0)).get()) == now + 600000);
  require_verified(c.get(), q);
}
