// Blocking claim: waits on the server, wakes promptly, times out on time,
// and can be cancelled from another thread.
#include "test_env.hpp"

#include <atomic>
#include <future>
#include <thread>

using namespace emqtest;

namespace {

constexpr int64_t kLongLease = 60000;

struct Outcome {
  int rc = 0;
  JobPtr job;
  int64_t returned_at = 0;  // mono_ms()
  std::string errmsg;
};

/// Runs echomq_bclaim on `c` in a thread of its own.
std::future<Outcome> bclaim_async(echomq_client *c, const std::string &q, int64_t timeout_ms) {
  return std::async(std::launch::async, [c, q, timeout_ms] {
    Outcome out;
    echomq_job *raw = nullptr;
    out.rc = echomq_bclaim(c, q.c_str(), kLongLease, timeout_ms, &raw);
    out.returned_at = mono_ms();
    out.job.reset(raw);
    out.errmsg = echomq_client_errmsg(c);
    return out;
  });
}

}  // namespace

TEST_CASE("bclaim returns at once when work is ready", "[bclaim]") {
  auto c = connect_client();
  const std::string q = fresh_queue("bready");
  enqueue(c.get(), q, "g", "ready");
  const int64_t t0 = mono_ms();
  echomq_job *raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_bclaim(c.get(), q.c_str(), kLongLease, 5000, &raw));
  JobPtr job(raw);
  REQUIRE(job);
  CHECK(mono_ms() - t0 < 500);
  CHECK(payload_of(job.get()) == "ready");
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

TEST_CASE("a waiting bclaim wakes promptly on an enqueue from another connection", "[bclaim]") {
  auto waiter = connect_client();
  auto producer = connect_client();
  const std::string q = fresh_queue("bwake");
  auto pending = bclaim_async(waiter.get(), q, 10000);
  sleep_ms(300);  // let it block on the server
  REQUIRE(pending.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);

  const uint64_t id = enqueue(producer.get(), q, "g", "wake up");
  const int64_t enqueued_at = mono_ms();
  REQUIRE(pending.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  Outcome out = pending.get();
  INFO("bclaim -> " << out.rc << ": " << out.errmsg);
  REQUIRE(out.rc == ECHOMQ_OK);
  REQUIRE(out.job);
  CHECK(echomq_job_id(out.job.get()) == id);
  CHECK(out.returned_at - enqueued_at < 500);
  ack(waiter.get(), q, out.job.get());
  require_verified(producer.get(), q);
}

TEST_CASE("bclaim returns EMPTY at its timeout, not much earlier", "[bclaim]") {
  auto c = connect_client();
  const std::string q = fresh_queue("btimeout");
  const int64_t t0 = mono_ms();
  echomq_job *raw = reinterpret_cast<echomq_job *>(&c);  // must become NULL
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EMPTY, echomq_bclaim(c.get(), q.c_str(), kLongLease, 400, &raw));
  const int64_t waited = mono_ms() - t0;
  CHECK(raw == nullptr);
  CHECK(waited >= 350);
  CHECK(waited < 2000);
  require_verified(c.get(), q);
}

TEST_CASE("bclaim wakes when a delayed job falls due", "[bclaim]") {
  auto c = connect_client();
  const std::string q = fresh_queue("bdelayed");
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 300;
  const int64_t t0 = mono_ms();
  const uint64_t id = enqueue(c.get(), q, "g", "due", &later);
  echomq_job *raw = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_bclaim(c.get(), q.c_str(), kLongLease, 5000, &raw));
  JobPtr job(raw);
  const int64_t waited = mono_ms() - t0;
  REQUIRE(job);
  CHECK(echomq_job_id(job.get()) == id);
  CHECK(waited >= 250);
  CHECK(waited < 300 + 600);
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

TEST_CASE("echomq_client_cancel interrupts a waiting bclaim promptly", "[bclaim]") {
  auto c = connect_client();
  const std::string q = fresh_queue("bcancel");
  echomq_client_cancel(c.get());  // no call in progress: does nothing
  EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));

  auto pending = bclaim_async(c.get(), q, 20000);
  sleep_ms(300);
  REQUIRE(pending.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);
  const int64_t cancelled_at = mono_ms();
  echomq_client_cancel(c.get());
  REQUIRE(pending.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  Outcome out = pending.get();
  INFO("bclaim -> " << out.rc << ": " << out.errmsg);
  CHECK(out.rc == ECHOMQ_ECANCELED);
  CHECK_FALSE(out.job);
  CHECK(out.returned_at - cancelled_at < 500);
  CHECK(out.errmsg != "");

  // The next call reconnects and works.
  enqueue(c.get(), q, "g", "after cancel");
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  ack(c.get(), q, job.get());
  require_verified(c.get(), q);
}

TEST_CASE("bclaim wakes when a lease expires", "[bclaim]") {
  auto holder = connect_client();
  auto waiter = connect_client();
  const std::string q = fresh_queue("bexpiry");
  const uint64_t id = enqueue(holder.get(), q, "g", "abandoned");
  JobPtr lost = claim(holder.get(), q, 300);
  REQUIRE(lost);
  const int64_t t0 = mono_ms();
  echomq_job *raw = nullptr;
  EMQ_REQUIRE_OK(waiter.get(), echomq_bclaim(waiter.get(), q.c_str(), kLongLease, 5000, &raw));
  JobPtr job(raw);
  const int64_t waited = mono_ms() - t0;
  REQUIRE(job);
  CHECK(echomq_job_id(job.get()) == id);
  CHECK(echomq_job_attempt(job.get()) == 2);
  CHECK(waited >= 250);
  CHECK(waited < 300 + 600);
  ack(waiter.get(), q, job.get());
  require_verified(waiter.get(), q);
}

TEST_CASE("two waiters and two jobs on one lane: both wake promptly", "[bclaim]") {
  auto a = connect_client();
  auto b = connect_client();
  auto producer = connect_client();
  const std::string q = fresh_queue("btwo");
  auto first = bclaim_async(a.get(), q, 10000);
  auto second = bclaim_async(b.get(), q, 10000);
  sleep_ms(300);
  enqueue(producer.get(), q, "g", "1");
  enqueue(producer.get(), q, "g", "2");  // the lane is already in the ring: no new wake-up of its own
  const int64_t enqueued_at = mono_ms();
  REQUIRE(first.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  REQUIRE(second.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  Outcome x = first.get();
  Outcome y = second.get();
  INFO("waiter a -> " << x.rc << " " << x.errmsg << ", waiter b -> " << y.rc << " " << y.errmsg);
  REQUIRE(x.rc == ECHOMQ_OK);
  REQUIRE(y.rc == ECHOMQ_OK);
  CHECK(x.returned_at - enqueued_at < 500);
  CHECK(y.returned_at - enqueued_at < 500);
  CHECK(echomq_job_id(x.job.get()) != echomq_job_id(y.job.get()));
  ack(a.get(), q, x.job.get());
  ack(b.get(), q, y.job.get());
  require_verified(producer.get(), q);
}

TEST_CASE("one job for two waiters: the other keeps waiting until its timeout", "[bclaim]") {
  auto a = connect_client();
  auto b = connect_client();
  auto producer = connect_client();
  const std::string q = fresh_queue("bone");
  const int64_t t0 = mono_ms();
  auto first = bclaim_async(a.get(), q, 1500);
  auto second = bclaim_async(b.get(), q, 1500);
  sleep_ms(300);
  enqueue(producer.get(), q, "g", "only");
  REQUIRE(first.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  REQUIRE(second.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  Outcome x = first.get();
  Outcome y = second.get();
  INFO("waiter a -> " << x.rc << ", waiter b -> " << y.rc);
  REQUIRE(((x.rc == ECHOMQ_OK) != (y.rc == ECHOMQ_OK)));
  const Outcome &loser = x.rc == ECHOMQ_OK ? y : x;
  const Outcome &winner = x.rc == ECHOMQ_OK ? x : y;
  CHECK(loser.rc == ECHOMQ_EMPTY);
  CHECK(loser.returned_at - t0 >= 1400);  // not woken into an early EMPTY
  ack(x.rc == ECHOMQ_OK ? a.get() : b.get(), q, winner.job.get());
  require_verified(producer.get(), q);
}

TEST_CASE("a waiter wakes when a paused lane resumes or a full lane frees a slot", "[bclaim]") {
  auto waiter = connect_client();
  auto admin = connect_client();
  const std::string q = fresh_queue("bresume");
  EMQ_REQUIRE_OK(admin.get(), echomq_pause(admin.get(), q.c_str(), "p"));
  enqueue(admin.get(), q, "p", "paused job");
  {
    auto pending = bclaim_async(waiter.get(), q, 10000);
    sleep_ms(300);
    REQUIRE(pending.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);
    EMQ_REQUIRE_OK(admin.get(), echomq_resume(admin.get(), q.c_str(), "p"));
    const int64_t resumed_at = mono_ms();
    REQUIRE(pending.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
    Outcome out = pending.get();
    REQUIRE(out.rc == ECHOMQ_OK);
    CHECK(out.returned_at - resumed_at < 500);
    ack(waiter.get(), q, out.job.get());
  }
  EMQ_REQUIRE_OK(admin.get(), echomq_set_limit(admin.get(), q.c_str(), "l", 1));
  enqueue(admin.get(), q, "l", "1");
  enqueue(admin.get(), q, "l", "2");
  JobPtr held = claim(admin.get(), q, kLongLease);
  REQUIRE(held);
  {
    auto pending = bclaim_async(waiter.get(), q, 10000);
    sleep_ms(300);
    REQUIRE(pending.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);
    ack(admin.get(), q, held.get());
    const int64_t acked_at = mono_ms();
    REQUIRE(pending.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
    Outcome out = pending.get();
    REQUIRE(out.rc == ECHOMQ_OK);
    CHECK(payload_of(out.job.get()) == "2");
    CHECK(out.returned_at - acked_at < 500);
    ack(waiter.get(), q, out.job.get());
  }
  require_verified(admin.get(), q);
}

TEST_CASE("ECANCELED from bclaim never leaves a job leased to nobody", "[bclaim]") {
  // A worker loops on bclaim while another thread cancels it at odd moments
  // and a producer feeds jobs: every job must end up acked by the worker,
  // none stuck in the leases because a cancelled bclaim had claimed it.
  auto worker = connect_client();
  auto producer = connect_client();
  const std::string q = fresh_queue("bcancelsafe");
  const int jobs = 60;
  std::atomic<bool> stop{false};
  std::atomic<int> acked{0}, cancelled{0}, errors{0};
  std::thread consumer([&] {
    while (!stop) {
      echomq_job *raw = nullptr;
      const int rc = echomq_bclaim(worker.get(), q.c_str(), kLongLease, 2000, &raw);
      if (rc == ECHOMQ_OK) {
        if (echomq_ack(worker.get(), q.c_str(), echomq_job_id(raw), echomq_job_token(raw)) == ECHOMQ_OK) {
          acked++;
        } else {
          errors++;
        }
        echomq_job_free(raw);
      } else if (rc == ECHOMQ_ECANCELED) {
        cancelled++;
      } else if (rc != ECHOMQ_EMPTY) {
        errors++;
      }
    }
  });
  for (int i = 0; i < jobs; ++i) {
    enqueue(producer.get(), q, "g" + std::to_string(i % 3), std::to_string(i));
    sleep_ms(i % 4 == 0 ? 1 : 12);
    echomq_client_cancel(worker.get());
  }
  const int64_t deadline = mono_ms() + 5000;
  while (acked < jobs && mono_ms() < deadline) sleep_ms(20);
  stop = true;
  echomq_client_cancel(worker.get());
  consumer.join();
  INFO("acked " << acked << ", cancelled " << cancelled << ", errors " << errors);
  CHECK(errors == 0);
  CHECK(acked == jobs);
  CHECK(cancelled > 0);
  const echomq_queue_stats s = stats(producer.get(), q);
  CHECK(s.leased == 0);
  CHECK(s.pending == 0);
  require_verified(producer.get(), q);
}
