// echomq_ack_many: the jobs of a wclaim settled in one round trip, each on
// its own; refused jobs change nothing; bad input sends nothing.
#include "test_env.hpp"

#include <vector>

#include "raw_valkey.hpp"

using namespace emqtest;

namespace {
constexpr int64_t kLongLease = 60000;
}

TEST_CASE("ack_many acks every job of a wclaim and frees the lane's slots", "[ack_many]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ackmany");
  for (int i = 0; i < 6; ++i) enqueue(c.get(), q, "heavy", "h");
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "heavy", 4));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "heavy", 4));
  JobListPtr jobs = wclaim(c.get(), q, kLongLease, 10);
  REQUIRE(jobs);
  REQUIRE(echomq_job_list_count(jobs.get()) == 4);
  CHECK(lane(c.get(), q, "heavy").serviceable == 0);  // at its ceiling

  std::vector<uint64_t> ids, tokens;
  for (size_t i = 0; i < 4; ++i) {
    ids.push_back(echomq_job_id(echomq_job_list_at(jobs.get(), i)));
    tokens.push_back(echomq_job_token(echomq_job_list_at(jobs.get(), i)));
  }
  std::vector<int> st(4, 99);
  size_t acked = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_ack_many(c.get(), q.c_str(), ids.data(), tokens.data(), 4,
                                          st.data(), &acked));
  CHECK(acked == 4);
  for (int s : st) CHECK(s == ECHOMQ_OK);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.acked_total == 4);
  CHECK(s.leased == 0);
  CHECK(s.pending == 2);
  CHECK(lane(c.get(), q, "heavy").serviceable == 1);  // rejoined the ring
  require_verified(c.get(), q);
}

TEST_CASE("ack_many settles each job on its own: stale and unknown ones change nothing",
          "[ack_many]") {
  auto c = connect_client();
  const std::string q = fresh_queue("ackmanymix");
  enqueue(c.get(), q, "a", "1");
  enqueue(c.get(), q, "b", "2");
  JobPtr a = claim(c.get(), q, kLongLease);
  JobPtr b = claim(c.get(), q, kLongLease);
  REQUIRE(a);
  REQUIRE(b);
  const uint64_t ids[] = {echomq_job_id(a.get()), echomq_job_id(b.get()), 999999};
  const uint64_t tokens[] = {echomq_job_token(a.get()), echomq_job_token(b.get()) + 1, 1};
  int st[3] = {99, 99, 99};
  size_t acked = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_ack_many(c.get(), q.c_str(), ids, tokens, 3, st, &acked));
  CHECK(acked == 1);
  CHECK(st[0] == ECHOMQ_OK);
  CHECK(st[1] == ECHOMQ_ESTALE);
  CHECK(st[2] == ECHOMQ_ENOTFOUND);
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.acked_total == 1);
  CHECK(s.leased == 1);  // b is still leased to its holder
  ack(c.get(), q, b.get());
  require_verified(c.get(), q);
}

TEST_CASE("ack_many refuses bad input before any I/O and writes nothing", "[ack_many]") {
  auto c = connect_client();
  RawValkey raw;
  const std::string q = fresh_queue("ackmanybad");
  enqueue(c.get(), q, "a", "1");
  JobPtr a = claim(c.get(), q, kLongLease);
  REQUIRE(a);
  const Keyspace before = raw.queue_snapshot(q);
  const uint64_t id = echomq_job_id(a.get()), token = echomq_job_token(a.get()), zero = 0;
  CHECK(echomq_ack_many(c.get(), q.c_str(), &id, &token, 0, nullptr, nullptr) == ECHOMQ_EINVAL);
  CHECK(echomq_ack_many(c.get(), q.c_str(), nullptr, &token, 1, nullptr, nullptr) ==
        ECHOMQ_EINVAL);
  CHECK(echomq_ack_many(c.get(), q.c_str(), &id, &zero, 1, nullptr, nullptr) == ECHOMQ_EINVAL);
  CHECK(std::string(echomq_client_errmsg(c.get())).find("token") != std::string::npos);
  CHECK(echomq_ack_many(c.get(), "bad:queue", &id, &token, 1, nullptr, nullptr) ==
        ECHOMQ_EINVAL);
  CHECK(echomq_ack_many(c.get(), q.c_str(), &id, &token, ECHOMQ_WCLAIM_MAX + 1, nullptr,
                        nullptr) == ECHOMQ_EINVAL);
  CHECK(raw.queue_snapshot(q) == before);
  ack(c.get(), q, a.get());
  require_verified(c.get(), q);
}
