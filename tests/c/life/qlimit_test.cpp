// The queue-wide ceiling and rate (echomq_set_queue_limit, _rate): never
// more leased than the ceiling, whatever the lanes and engines; the
// rotation still decides whose jobs; blocked engines wake when a slot
// frees; a sharded queue splits them.
#include "test_env.hpp"

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

echomq_lifecycle_settings life(echomq_client *c, const std::string &q) {
  echomq_lifecycle_settings s{};
  s.version = ECHOMQ_LIFECYCLE_SETTINGS_VERSION;
  EMQ_REQUIRE_OK(c, echomq_get_lifecycle(c, q.c_str(), &s));
  return s;
}

}  // namespace

TEST_CASE("a queue-wide ceiling of 3 with 8 engines: never more than 3 leased", "[qlimit]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ql_engines");
  EMQ_REQUIRE_OK(c.get(), echomq_set_queue_limit(c.get(), q.c_str(), 3));
  enqueue_spread(c.get(), q, 240, 12);
  std::atomic<bool> stop{false};
  std::atomic<long long> most{0}, samples{0};
  // Clients and engines are made here: the helpers assert with Catch, which
  // is not thread-safe, so the threads call the C API alone.
  auto sc = connect_client();
  std::thread sampler([&, s = sc.get()] {
    while (!stop) {
      echomq_lifecycle_settings ls{};
      ls.version = ECHOMQ_LIFECYCLE_SETTINGS_VERSION;
      if (echomq_get_lifecycle(s, q.c_str(), &ls) != ECHOMQ_OK) continue;
      const long long leased = static_cast<long long>(ls.leased);
      long long m = most.load();
      while (leased > m && !most.compare_exchange_weak(m, leased)) {
      }
      ++samples;
      sleep_ms(2);
    }
  });
  std::vector<std::thread> engines;
  std::vector<WorkerPtr> workers;
  std::atomic<int> done{0};
  for (int e = 0; e < 8; ++e) {
    echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
    o.slots = 4;
    o.idle_timeout_ms = 1500;
    workers.push_back(start_worker(q, o));
  }
  for (auto &wp : workers) {
    engines.emplace_back([&, w = wp.get()] {
      for (;;) {
        echomq_job *j = nullptr;
        const int rc = echomq_worker_next(w, 5000, &j);
        if (rc != ECHOMQ_OK) break;
        sleep_ms(3);
        echomq_worker_done(w, j);
        echomq_job_free(j);
        ++done;
      }
      echomq_worker_stop(w, ECHOMQ_STOP_DRAIN, 5000);
    });
  }
  for (auto &t : engines) t.join();
  stop = true;
  sampler.join();
  INFO(samples << " samples");
  CHECK(done == 240);
  CHECK(most <= 3);
  CHECK(most >= 2);  // the ceiling was used, not only respected
  CHECK(stats(c.get(), q).acked_total == 240);
  require_verified(c.get(), q);
}

TEST_CASE("at the ceiling a claim takes nothing, the rotation decides who gets a slot", "[qlimit]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ql_fair");
  EMQ_REQUIRE_OK(c.get(), echomq_set_queue_limit(c.get(), q.c_str(), 2));
  for (int i = 0; i < 6; ++i)
    for (const char *g : {"a", "b", "c"}) enqueue(c.get(), q, g, g);
  JobPtr one = claim(c.get(), q, kLease);
  JobPtr two = claim(c.get(), q, kLease);
  REQUIRE(one);
  REQUIRE(two);
  CHECK_FALSE(claim(c.get(), q, kLease));  // at the ceiling
  // A batch claim takes the room only.
  ack(c.get(), q, one.get());
  echomq_job_list *l = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), q.c_str(), kLease, 10, 0, &l));
  JobListPtr list(l);
  REQUIRE(echomq_job_list_count(list.get()) == 1);
  // The order of service is the ring's: a, b, c, a, ...
  std::string order = std::string(echomq_job_group(two.get())) +
                      echomq_job_group(echomq_job_list_at(list.get(), 0));
  ack(c.get(), q, two.get());
  ack(c.get(), q, echomq_job_list_at(list.get(), 0));
  for (int i = 0; i < 4; ++i) {
    JobPtr j = claim(c.get(), q, kLease);
    REQUIRE(j);
    order += echomq_job_group(j.get());
    ack(c.get(), q, j.get());
  }
  CHECK(order == "bcabca");
  require_verified(c.get(), q);
}

TEST_CASE("a blocked claimer wakes when a slot frees", "[qlimit]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ql_wake");
  EMQ_REQUIRE_OK(c.get(), echomq_set_queue_limit(c.get(), q.c_str(), 1));
  enqueue(c.get(), q, "a", "1");
  enqueue(c.get(), q, "b", "2");
  JobPtr held = claim(c.get(), q, kLease);
  REQUIRE(held);
  std::atomic<int64_t> woke{-1};
  const int64_t t0 = mono_ms();
  auto wc = connect_client();  // here: the helper asserts with Catch, not thread-safe
  std::thread waiter([&, w = wc.get()] {
    echomq_job *j = nullptr;
    if (echomq_bclaim(w, q.c_str(), kLease, 5000, &j) == ECHOMQ_OK) woke = mono_ms() - t0;
    echomq_job_free(j);
  });
  sleep_ms(300);
  CHECK(woke == -1);  // still at the ceiling
  ack(c.get(), q, held.get());
  waiter.join();
  CHECK(woke >= 300);
  CHECK(woke < 1500);
}

TEST_CASE("a queue-wide rate and a lane limit compose", "[qlimit]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ql_rate");
  EMQ_REQUIRE_OK(c.get(), echomq_set_queue_rate(c.get(), q.c_str(), 4, 60000, 4));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "a", 1));
  for (int i = 0; i < 5; ++i) {
    enqueue(c.get(), q, "a", "a");
    enqueue(c.get(), q, "b", "b");
  }
  std::vector<JobPtr> got;
  for (JobPtr j = claim(c.get(), q, kLease); j; j = claim(c.get(), q, kLease)) got.push_back(std::move(j));
  REQUIRE(got.size() == 4);  // the rate's burst
  int as = 0;
  for (auto &j : got) as += std::string(echomq_job_group(j.get())) == "a";
  CHECK(as == 1);  // lane a's own limit held within it
  echomq_lifecycle_settings s = life(c.get(), q);
  CHECK(s.rate_jobs == 4);
  CHECK(s.tokens < 1);
  CHECK(s.next_token_at_ms > 0);
  EMQ_REQUIRE_OK(c.get(), echomq_set_queue_rate(c.get(), q.c_str(), 0, 1000, 0));
  CHECK(claim(c.get(), q, kLease));  // cleared: claims go on
  require_verified(c.get(), q);
}

TEST_CASE("a sharded queue splits the ceiling between its shards", "[qlimit]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ql_sharded");
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 2));
  CHECK(echomq_set_queue_limit(c.get(), q.c_str(), 1) == ECHOMQ_EINVAL);  // 1 over 2 shards
  EMQ_REQUIRE_OK(c.get(), echomq_set_queue_limit(c.get(), q.c_str(), 3));
  CHECK(life(c.get(), q).queue_limit == 3);
  enqueue_spread(c.get(), q, 40, 8);
  std::vector<JobPtr> got;
  for (JobPtr j = claim(c.get(), q, kLease); j; j = claim(c.get(), q, kLease)) got.push_back(std::move(j));
  CHECK(got.size() == 3);
  CHECK(echomq_set_queue_limit(c.get(), q.c_str(), ECHOMQ_LIMIT_MAX + 1u) == ECHOMQ_EINVAL);
  CHECK(echomq_set_queue_rate(c.get(), q.c_str(), 1, 0, 0) == ECHOMQ_EINVAL);
}

// The gate counts the leases before the call's first write: far from the
// ceiling that count stands in for the room, near it the leases are counted
// again after the call's own settlements.
TEST_CASE("a settlement and a claim in one call: the claim takes the room the settlement freed", "[qlimit]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ql_settle");
  EMQ_REQUIRE_OK(c.get(), echomq_set_queue_limit(c.get(), q.c_str(), 3));
  enqueue_spread(c.get(), q, 30, 3);
  echomq_job_list *raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), q.c_str(), kLease, 10, 0, &raw));
  JobListPtr first(raw);
  REQUIRE(echomq_job_list_count(first.get()) == 3);  // the room, from 0 leased
  // At the ceiling: two acks and a fail (released) free 3 slots in the call
  // that claims: it takes 3, never more.
  SettlePtr s(echomq_settle_create());
  for (size_t i = 0; i < 2; ++i) {
    const echomq_job *j = echomq_job_list_at(first.get(), i);
    EMQ_REQUIRE_OK(c.get(), echomq_settle_ack(s.get(), echomq_job_id(j), echomq_job_token(j)));
  }
  const echomq_job *f = echomq_job_list_at(first.get(), 2);
  EMQ_REQUIRE_OK(c.get(), echomq_settle_fail(s.get(), echomq_job_id(f), echomq_job_token(f), "again",
                                             ECHOMQ_RETRY_RELEASE));
  raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_settle_claim(c.get(), q.c_str(), s.get(), kLease, 10, 0, &raw));
  JobListPtr second(raw);
  CHECK(echomq_job_list_count(second.get()) == 3);
  CHECK(life(c.get(), q).leased == 3);
  // One ack and a claim of 2 at the ceiling: the call takes 1.
  echomq_settle_clear(s.get());
  const echomq_job *a = echomq_job_list_at(second.get(), 0);
  EMQ_REQUIRE_OK(c.get(), echomq_settle_ack(s.get(), echomq_job_id(a), echomq_job_token(a)));
  raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_settle_claim(c.get(), q.c_str(), s.get(), kLease, 2, 0, &raw));
  JobListPtr third(raw);
  CHECK(echomq_job_list_count(third.get()) == 1);
  CHECK(life(c.get(), q).leased == 3);
  CHECK_FALSE(claim(c.get(), q, kLease));  // at the ceiling
  // Below the ceiling but within the claim's reach (2 leased, 5 asked): 1.
  ack(c.get(), q, echomq_job_list_at(third.get(), 0));
  raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), q.c_str(), kLease, 5, 0, &raw));
  JobListPtr fourth(raw);
  CHECK(echomq_job_list_count(fourth.get()) == 1);
  CHECK(life(c.get(), q).leased == 3);
  // Far from the ceiling: a claim takes all it asks for.
  EMQ_REQUIRE_OK(c.get(), echomq_set_queue_limit(c.get(), q.c_str(), 100));
  raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_claim_batch(c.get(), q.c_str(), kLease, 10, 0, &raw));
  JobListPtr far(raw);
  CHECK(echomq_job_list_count(far.get()) == 10);
  CHECK(life(c.get(), q).leased == 13);
  require_verified(c.get(), q);
}
