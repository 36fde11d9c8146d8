// Inspection: queue counters, one lane's figures, lane paging, dead listing
// and redrive_all.
#include "test_env.hpp"

#include <algorithm>
#include <random>
#include <set>

using namespace emqtest;

namespace {

constexpr int64_t kLongLease = 60000;

echomq_enqueue_options attempts(uint32_t n) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.max_attempts = n;
  return o;
}

LaneListPtr lanes_page(echomq_client *c, const std::string &q, const char *after, size_t count) {
  echomq_lane_list *raw = nullptr;
  EMQ_REQUIRE_OK(c, echomq_lanes(c, q.c_str(), after, count, &raw));
  REQUIRE(raw != nullptr);
  return LaneListPtr(raw);
}

}  // namespace

TEST_CASE("stats counts every state and every transition", "[inspect]") {
  auto c = connect_client();
  const std::string q = fresh_queue("stats");
  echomq_queue_stats s = stats(c.get(), q);  // an unknown queue is all zeros
  CHECK(s.lanes == 0);
  CHECK(s.pending == 0);
  CHECK(s.enqueued_total == 0);
  CHECK(s.default_weight == 1);
  CHECK(s.default_limit == 0);
  CHECK(s.default_max_attempts == 3);
  CHECK(s.server_time_ms > 1600000000000LL);

  const echomq_enqueue_options once = attempts(1);
  for (int i = 0; i < 3; ++i) enqueue(c.get(), q, "a", "a");
  enqueue(c.get(), q, "b", "b");
  enqueue(c.get(), q, "b", "b-dies", &once);
  enqueue(c.get(), q, "c", "c");
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 60000;
  enqueue(c.get(), q, "d", "later", &later);
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "c"));
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "settings-only", 2));

  JobPtr a1 = claim(c.get(), q, kLongLease);  // a
  JobPtr b1 = claim(c.get(), q, kLongLease);  // b
  JobPtr a2 = claim(c.get(), q, kLongLease);  // a
  JobPtr b2 = claim(c.get(), q, kLongLease);  // b-dies
  REQUIRE(b2);
  REQUIRE(payload_of(b2.get()) == "b-dies");
  ack(c.get(), q, a1.get());
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), echomq_job_id(b2.get()), echomq_job_token(b2.get()), "x", 0, nullptr));

  s = stats(c.get(), q);
  CHECK(s.lanes == 5);  // a, b, c, d, settings-only
  CHECK(s.ring == 1);   // only a has pending work and is not paused
  CHECK(s.pending == 2);  // one a, one c
  CHECK(s.leased == 2);   // b1, a2
  CHECK(s.delayed == 1);
  CHECK(s.dead == 1);
  CHECK(s.paused == 1);
  CHECK(s.enqueued_total == 7);
  CHECK(s.claimed_total == 4);
  CHECK(s.acked_total == 1);
  CHECK(s.failed_total == 1);
  CHECK(s.dead_total == 1);
  const int64_t t1 = s.server_time_ms;
  sleep_ms(20);
  CHECK(stats(c.get(), q).server_time_ms >= t1 + 10);

  ack(c.get(), q, b1.get());
  ack(c.get(), q, a2.get());
  require_verified(c.get(), q);
}

TEST_CASE("echomq_lane reports depth, active, settings, served and the oldest job", "[inspect]") {
  auto c = connect_client();
  const std::string q = fresh_queue("lane");
  echomq_lane_info info = lane(c.get(), q, "nobody");  // unknown lanes exist implicitly
  CHECK(std::string(info.group) == "nobody");
  CHECK(info.depth == 0);
  CHECK(info.active == 0);
  CHECK(info.limit == 0);
  CHECK(info.weight == 1);
  CHECK(info.limit_is_default == 1);
  CHECK(info.weight_is_default == 1);
  CHECK(info.paused == 0);
  CHECK(info.serviceable == 0);
  CHECK(info.served == 0);
  CHECK(info.oldest_enqueued_at_ms == 0);

  const int64_t before = stats(c.get(), q).server_time_ms;
  enqueue(c.get(), q, "g", "1");
  const int64_t between = stats(c.get(), q).server_time_ms;
  sleep_ms(30);
  enqueue(c.get(), q, "g", "2");
  enqueue(c.get(), q, "g", "3");
  info = lane(c.get(), q, "g");
  CHECK(std::string(info.group) == "g");
  CHECK(info.depth == 3);
  CHECK(info.active == 0);
  CHECK(info.serviceable == 1);
  CHECK(info.oldest_enqueued_at_ms >= before);
  CHECK(info.oldest_enqueued_at_ms <= between);

  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  CHECK(echomq_job_enqueued_at_ms(job.get()) == info.oldest_enqueued_at_ms);
  CHECK(echomq_job_lease_until_ms(job.get()) >= between + kLongLease);
  CHECK(echomq_job_lease_until_ms(job.get()) <= stats(c.get(), q).server_time_ms + kLongLease);
  info = lane(c.get(), q, "g");
  CHECK(info.depth == 2);
  CHECK(info.active == 1);
  CHECK(info.served == 1);
  CHECK(info.oldest_enqueued_at_ms >= between + 30);  // job 2 is the head now

  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", 4));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "g", 1));
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "g"));
  info = lane(c.get(), q, "g");
  CHECK(info.weight == 4);
  CHECK(info.weight_is_default == 0);
  CHECK(info.limit == 1);
  CHECK(info.limit_is_default == 0);
  CHECK(info.paused == 1);
  CHECK(info.serviceable == 0);

  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "g"));
  CHECK(lane(c.get(), q, "g").serviceable == 0);  // still at its ceiling
  ack(c.get(), q, job.get());
  info = lane(c.get(), q, "g");
  CHECK(info.serviceable == 1);
  CHECK(info.served == 1);
  JobPtr second = claim(c.get(), q, kLongLease);
  REQUIRE(second);
  CHECK(lane(c.get(), q, "g").served == 2);
  ack(c.get(), q, second.get());
  require_verified(c.get(), q);
}

TEST_CASE("echomq_lane reports delayed jobs and whether the lane is known", "[inspect]") {
  auto c = connect_client();
  const std::string q = fresh_queue("known");
  CHECK(lane(c.get(), q, "g").known == 0);
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 60000;
  enqueue(c.get(), q, "g", "later", &later);
  enqueue(c.get(), q, "g", "later too", &later);
  echomq_lane_info info = lane(c.get(), q, "g");
  CHECK(info.known == 1);
  CHECK(info.delayed == 2);
  CHECK(info.depth == 0);
  CHECK(info.serviceable == 0);
  CHECK(stats(c.get(), q).lanes == 1);

  enqueue(c.get(), q, "h", "now");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), echomq_job_id(job.get()), echomq_job_token(job.get()), "later", 60000, nullptr));
  CHECK(lane(c.get(), q, "h").delayed == 1);
  CHECK(lane(c.get(), q, "h").known == 1);

  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "settings", 3));
  CHECK(lane(c.get(), q, "settings").known == 1);
  EMQ_REQUIRE_OK(c.get(), echomq_clear_limit(c.get(), q.c_str(), "settings"));
  CHECK(lane(c.get(), q, "settings").known == 0);
  CHECK(stats(c.get(), q).lanes == 2);
  require_verified(c.get(), q);
}

TEST_CASE("echomq_lanes walks 2,500 lanes in sorted pages, each exactly once", "[inspect]") {
  auto c = connect_client();
  const std::string q = fresh_queue("paging");
  std::vector<std::string> names;
  for (int i = 0; i < 2497; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "lane-%05d", i);
    names.emplace_back(name);
  }
  // Bytes above ASCII sort after it (byte order, not locale order).
  names.emplace_back("Zeta");
  names.emplace_back("\xc3\xa9t\xc3\xa9");  // "été"
  names.emplace_back("a b");
  std::mt19937 shuffle_seed(7);
  std::vector<std::string> insert_order = names;
  std::shuffle(insert_order.begin(), insert_order.end(), shuffle_seed);
  for (const auto &name : insert_order) enqueue(c.get(), q, name, "x");
  REQUIRE(stats(c.get(), q).lanes == 2500);

  std::vector<std::string> walked;
  std::string cursor;
  int pages = 0;
  for (;;) {
    LaneListPtr page = lanes_page(c.get(), q, cursor.empty() ? nullptr : cursor.c_str(), 1000);
    ++pages;
    REQUIRE(pages <= 4);
    const size_t n = echomq_lane_list_count(page.get());
    REQUIRE(n <= 1000);
    REQUIRE(echomq_lane_list_at(page.get(), n) == nullptr);
    for (size_t i = 0; i < n; ++i) {
      const echomq_lane_info *info = echomq_lane_list_at(page.get(), i);
      REQUIRE(info != nullptr);
      walked.emplace_back(info->group);
      CHECK(info->depth == 1);
      CHECK(info->serviceable == 1);
    }
    const char *next = echomq_lane_list_next(page.get());
    if (next == nullptr) break;
    REQUIRE(n > 0);
    CHECK(std::string(next) == walked.back());
    cursor = next;
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  CHECK(walked.size() == 2500);
  CHECK(walked == sorted);
  CHECK(pages >= 3);

  // Pages of one: every lane exactly once (a sample of the first ten).
  std::string after;
  for (int i = 0; i < 10; ++i) {
    LaneListPtr one = lanes_page(c.get(), q, after.empty() ? nullptr : after.c_str(), 1);
    REQUIRE(echomq_lane_list_count(one.get()) == 1);
    CHECK(std::string(echomq_lane_list_at(one.get(), 0)->group) == sorted[i]);
    REQUIRE(echomq_lane_list_next(one.get()) != nullptr);
    after = echomq_lane_list_next(one.get());
  }
  // A cursor between two names, and one past the end.
  LaneListPtr between = lanes_page(c.get(), q, "lane-00010x", 1);
  REQUIRE(echomq_lane_list_count(between.get()) == 1);
  CHECK(std::string(echomq_lane_list_at(between.get(), 0)->group) == "lane-00011");
  LaneListPtr past = lanes_page(c.get(), q, "\xf4\x8f\xbf\xbf", 10);
  CHECK(echomq_lane_list_count(past.get()) == 0);
  CHECK(echomq_lane_list_next(past.get()) == nullptr);

  // A cursor in the middle starts right after it.
  LaneListPtr tail = lanes_page(c.get(), q, "lane-02490", 100);
  REQUIRE(echomq_lane_list_count(tail.get()) >= 1);
  CHECK(std::string(echomq_lane_list_at(tail.get(), 0)->group) == "lane-02491");
  require_verified(c.get(), q);
}

TEST_CASE("dead listing pages oldest death first, redrive_all revives every dead job", "[inspect]") {
  auto c = connect_client();
  const std::string q = fresh_queue("deadlist");
  const echomq_enqueue_options once = attempts(1);
  std::vector<uint64_t> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(enqueue(c.get(), q, "g" + std::to_string(i), "p", &once));
  for (int i = 0; i < 3; ++i) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    REQUIRE(echomq_job_id(job.get()) == ids[i]);
    EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), ids[i], echomq_job_token(job.get()),
                                        ("error " + std::to_string(i)).c_str(), 0, nullptr));
    sleep_ms(2);  // distinct death times
  }
  echomq_job_list *raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_dead(c.get(), q.c_str(), 0, 10, &raw));
  JobListPtr all(raw);
  REQUIRE(echomq_job_list_count(all.get()) == 3);
  for (size_t i = 0; i < 3; ++i) {
    const echomq_job *d = echomq_job_list_at(all.get(), i);
    CHECK(echomq_job_id(d) == ids[i]);
    CHECK(std::string(echomq_job_last_error(d)) == "error " + std::to_string(i));
    CHECK(std::string(echomq_job_group(d)) == "g" + std::to_string(i));
    if (i > 0) CHECK(echomq_job_dead_at_ms(d) >= echomq_job_dead_at_ms(echomq_job_list_at(all.get(), i - 1)));
  }
  raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_dead(c.get(), q.c_str(), 1, 1, &raw));
  JobListPtr middle(raw);
  REQUIRE(echomq_job_list_count(middle.get()) == 1);
  CHECK(echomq_job_id(echomq_job_list_at(middle.get(), 0)) == ids[1]);
  raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_dead(c.get(), q.c_str(), 3, 10, &raw));
  JobListPtr past_end(raw);
  CHECK(echomq_job_list_count(past_end.get()) == 0);
  require_verified(c.get(), q);

  uint64_t redriven = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_redrive_all(c.get(), q.c_str(), &redriven));
  CHECK(redriven == 3);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.dead == 0);
  CHECK(s.pending == 3);
  CHECK(s.ring == 3);
  require_verified(c.get(), q);
  std::set<uint64_t> revived;
  while (JobPtr job = claim(c.get(), q, kLongLease)) {
    CHECK(echomq_job_attempt(job.get()) == 2);
    revived.insert(echomq_job_id(job.get()));
    ack(c.get(), q, job.get());
  }
  CHECK(revived == std::set<uint64_t>(ids.begin(), ids.end()));
  EMQ_REQUIRE_OK(c.get(), echomq_redrive_all(c.get(), q.c_str(), &redriven));
  CHECK(redriven == 0);
  require_verified(c.get(), q);
}

TEST_CASE("a batch enqueues in order, in one call, all or nothing", "[inspect]") {
  auto c = connect_client();
  const std::string q = fresh_queue("batch");
  BatchPtr batch(echomq_batch_create());
  REQUIRE(batch);
  for (int i = 0; i < 50; ++i) {
    const std::string group = i % 2 ? "odd" : "even";
    const std::string payload = std::to_string(i);
    EMQ_REQUIRE_OK(c.get(), echomq_batch_add(batch.get(), group.c_str(), payload.data(), payload.size()));
  }
  REQUIRE(echomq_batch_count(batch.get()) == 50);
  CHECK(echomq_batch_id(batch.get(), 0) == 0);
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), batch.get(), nullptr));
  for (size_t i = 1; i < 50; ++i) CHECK(echomq_batch_id(batch.get(), i) > echomq_batch_id(batch.get(), i - 1));
  CHECK(stats(c.get(), q).pending == 50);
  CHECK(lane(c.get(), q, "odd").depth == 25);
  for (int i = 0; i < 50; ++i) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    CHECK(payload_of(job.get()) == std::to_string(i));  // even, odd, even, ...
    CHECK(echomq_job_id(job.get()) == echomq_batch_id(batch.get(), i));
    ack(c.get(), q, job.get());
  }
  echomq_batch_clear(batch.get());
  CHECK(echomq_batch_count(batch.get()) == 0);
  require_verified(c.get(), q);
}
