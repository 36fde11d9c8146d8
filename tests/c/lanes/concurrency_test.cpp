// Several workers, each with its own client in its own thread, drain one
// queue: every job is delivered exactly once while leases hold.
#include "test_env.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

using namespace emqtest;

TEST_CASE("concurrent workers never receive the same lease twice", "[concurrency]") {
  auto producer = connect_client();
  const std::string q = fresh_queue("workers");
  const int jobs = 2000;
  BatchPtr batch(echomq_batch_create());
  for (int i = 0; i < jobs; ++i) {
    const std::string group = "tenant" + std::to_string(i % 25);
    REQUIRE(echomq_batch_add(batch.get(), group.c_str(), "w", 1) == ECHOMQ_OK);
  }
  EMQ_REQUIRE_OK(producer.get(), echomq_enqueue_batch(producer.get(), q.c_str(), batch.get(), nullptr));
  EMQ_REQUIRE_OK(producer.get(), echomq_set_limit(producer.get(), q.c_str(), "tenant3", 1));

  const std::string url = server_url();  // Catch assertions stay on this thread
  std::mutex mu;
  std::multiset<uint64_t> delivered;
  std::atomic<int> errors{0};
  std::atomic<int> over_limit{0};
  std::atomic<int> tenant3_active{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      echomq_client *c = echomq_client_create(nullptr);
      if (c == nullptr || echomq_client_connect(c, url.c_str()) != ECHOMQ_OK) {
        errors++;
        echomq_client_free(c);
        return;
      }
      echomq_job *job = nullptr;
      int rc = echomq_claim(c, q.c_str(), 60000, &job);
      while (rc == ECHOMQ_OK) {
        const bool capped = std::string(echomq_job_group(job)) == "tenant3";
        if (capped && ++tenant3_active > 1) over_limit++;
        {
          std::lock_guard<std::mutex> lock(mu);
          delivered.insert(echomq_job_id(job));
        }
        if (capped) --tenant3_active;
        echomq_job *next = nullptr;
        rc = echomq_ack_claim(c, q.c_str(), echomq_job_id(job), echomq_job_token(job), 60000, &next);
        echomq_job_free(job);
        job = next;
      }
      if (rc != ECHOMQ_EMPTY) errors++;
      echomq_client_free(c);
    });
  }
  for (auto &t : workers) t.join();
  CHECK(errors == 0);
  CHECK(over_limit == 0);
  CHECK(delivered.size() == static_cast<size_t>(jobs));
  CHECK(std::set<uint64_t>(delivered.begin(), delivered.end()).size() == static_cast<size_t>(jobs));
  for (size_t i = 0; i < echomq_batch_count(batch.get()); ++i) {
    CHECK(delivered.count(echomq_batch_id(batch.get(), i)) == 1);
  }
  echomq_queue_stats s = stats(producer.get(), q);
  CHECK(s.acked_total == static_cast<uint64_t>(jobs));
  CHECK(s.claimed_total == static_cast<uint64_t>(jobs));
  require_verified(producer.get(), q);
}
