// The ring's promise: every serviceable lane is served once per turn, however
// deep it is, and mint order holds inside a lane.
#include "test_env.hpp"

#include <map>

using namespace emqtest;

namespace {

constexpr int64_t kLongLease = 60000;

/// "<group>#<n>": lets a test check which job of which lane it got.
std::string tag(const std::string &group, int n) { return group + "#" + std::to_string(n); }

int index_of(const echomq_job *job) {
  const std::string p = payload_of(job);
  const auto hash = p.find('#');
  REQUIRE(hash != std::string::npos);
  REQUIRE(p.substr(0, hash) == echomq_job_group(job));
  return std::stoi(p.substr(hash + 1));
}

}  // namespace

TEST_CASE("seed promise: a deep lane does not hold back nine small ones", "[fairness]") {
  auto c = connect_client();
  const std::string q = fresh_queue("fair");
  const std::vector<std::string> lanes = {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"};

  // A is enqueued first and holds 1,000 jobs; B..J hold 10 each.
  for (int i = 0; i < 1000; ++i) enqueue(c.get(), q, "A", tag("A", i));
  for (size_t l = 1; l < lanes.size(); ++l) {
    for (int i = 0; i < 10; ++i) enqueue(c.get(), q, lanes[l], tag(lanes[l], i));
  }
  REQUIRE(stats(c.get(), q).ring == lanes.size());

  std::vector<JobPtr> held;
  std::map<std::string, int> next_index;  // per lane: the index mint order says comes next
  std::map<std::string, uint64_t> last_id;
  for (int n = 0; n < 100; ++n) {
    JobPtr job = claim(c.get(), q, kLongLease);
    INFO("claim #" << n);
    REQUIRE(job);
    const std::string group = echomq_job_group(job.get());
    // Round robin in the order the lanes joined the ring: A, B, ..., J, A, ...
    CHECK(group == lanes[n % lanes.size()]);
    CHECK(index_of(job.get()) == next_index[group]++);
    CHECK(echomq_job_id(job.get()) > last_id[group]);
    last_id[group] = echomq_job_id(job.get());
    CHECK(echomq_job_attempt(job.get()) == 1);
    held.push_back(std::move(job));
  }
  for (size_t l = 1; l < lanes.size(); ++l) {
    INFO("lane " << lanes[l]);
    CHECK(next_index[lanes[l]] == 10);  // every job of B..J served in the first 100 claims
    CHECK(lane(c.get(), q, lanes[l]).depth == 0);
  }
  CHECK(next_index["A"] == 10);
  CHECK(stats(c.get(), q).ring == 1);

  // The rest is A's, still in mint order.
  for (int n = 10; n < 1000; ++n) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    REQUIRE(std::string(echomq_job_group(job.get())) == "A");
    REQUIRE(index_of(job.get()) == n);
    held.push_back(std::move(job));
  }
  REQUIRE_FALSE(claim(c.get(), q, kLongLease));

  const echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.leased == 1090);
  CHECK(s.pending == 0);
  CHECK(s.ring == 0);
  require_verified(c.get(), q);
  for (const auto &job : held) ack(c.get(), q, job.get());
  CHECK(stats(c.get(), q).leased == 0);
  CHECK(stats(c.get(), q).acked_total == 1090);
  require_verified(c.get(), q);
}

TEST_CASE("a lane that joins late is served within one turn", "[fairness]") {
  auto c = connect_client();
  const std::string q = fresh_queue("late");
  for (int i = 0; i < 50; ++i) {
    enqueue(c.get(), q, "big1", tag("big1", i));
    enqueue(c.get(), q, "big2", tag("big2", i));
  }
  std::vector<JobPtr> held;
  for (int n = 0; n < 5; ++n) held.push_back(claim(c.get(), q, kLongLease));
  enqueue(c.get(), q, "late", tag("late", 0));
  REQUIRE(stats(c.get(), q).ring == 3);

  // It joins at the tail: at most the two lanes ahead of it go first.
  int position = -1;
  for (int n = 0; n < 3; ++n) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    if (std::string(echomq_job_group(job.get())) == "late") position = n;
    held.push_back(std::move(job));
  }
  CHECK(position >= 0);
  for (const auto &job : held) {
    REQUIRE(job);
    ack(c.get(), q, job.get());
  }
  require_verified(c.get(), q);
}

TEST_CASE("a lane that drains leaves the ring and rejoins at the tail", "[fairness]") {
  auto c = connect_client();
  const std::string q = fresh_queue("drain");
  for (int i = 0; i < 3; ++i) enqueue(c.get(), q, "a", tag("a", i));
  enqueue(c.get(), q, "b", tag("b", 0));
  for (int i = 0; i < 3; ++i) enqueue(c.get(), q, "c", tag("c", i));

  std::vector<std::string> order;
  for (int n = 0; n < 4; ++n) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    order.emplace_back(echomq_job_group(job.get()));
    ack(c.get(), q, job.get());
  }
  CHECK(order == std::vector<std::string>{"a", "b", "c", "a"});
  CHECK(lane(c.get(), q, "b").serviceable == 0);
  CHECK(stats(c.get(), q).ring == 2);

  enqueue(c.get(), q, "b", tag("b", 1));  // ring is now c, a, b
  CHECK(lane(c.get(), q, "b").serviceable == 1);
  for (int n = 0; n < 3; ++n) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    order.emplace_back(echomq_job_group(job.get()));
    ack(c.get(), q, job.get());
  }
  CHECK(order == std::vector<std::string>{"a", "b", "c", "a", "c", "a", "b"});
  require_verified(c.get(), q);
}

TEST_CASE("the schedule is deterministic: same operations, same service order", "[fairness]") {
  auto c = connect_client();
  std::vector<std::vector<std::string>> runs;
  for (int run = 0; run < 2; ++run) {
    const std::string q = fresh_queue("det");
    EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "w3", 3));
    EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "l1", 1));
    for (int i = 0; i < 12; ++i) {
      for (const char *g : {"w3", "l1", "plain", "other"}) enqueue(c.get(), q, g, tag(g, i));
    }
    std::vector<std::string> order;
    std::vector<JobPtr> held;
    for (int n = 0; n < 20; ++n) {
      if (n % 3 == 0) {
        JobListPtr list = wclaim(c.get(), q, kLongLease, 10);
        REQUIRE(list);
        for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i) {
          order.push_back(payload_of(echomq_job_list_at(list.get(), i)));
        }
        for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i) {
          ack(c.get(), q, echomq_job_list_at(list.get(), i));
        }
      } else {
        JobPtr job = claim(c.get(), q, kLongLease);
        REQUIRE(job);
        order.push_back(payload_of(job.get()));
        // l1's jobs are held, so its ceiling keeps it out of the ring for a while.
        if (std::string(echomq_job_group(job.get())) == "l1" && held.empty()) {
          held.push_back(std::move(job));
        } else {
          ack(c.get(), q, job.get());
        }
      }
      if (n == 10) {
        for (const auto &job : held) ack(c.get(), q, job.get());
        held.clear();
      }
    }
    for (const auto &job : held) ack(c.get(), q, job.get());
    require_verified(c.get(), q);
    runs.push_back(order);
  }
  CHECK(runs[0] == runs[1]);
  CHECK(runs[0].size() >= 20);
}
