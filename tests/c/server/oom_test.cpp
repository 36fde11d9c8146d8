// A full server keeps draining: under maxmemory + noeviction, enqueue (and
// the other calls that only add) is refused with ECHOMQ_EOOM and writes
// nothing, while claim, wclaim, bclaim, ack, ack many, ack-and-claim, fail
// and extend keep working until the backlog is gone.
#include "test_env.hpp"

#include "raw_valkey.hpp"

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

/// Asserts that `call` is refused with EOOM and leaves the keyspace untouched.
template <class F>
void require_oom(RawValkey &raw, echomq_client *c, const char *what, F &&call) {
  const Keyspace before = raw.snapshot();
  const int rc = call();
  INFO(what << " on a full server -> " << describe(c, rc));
  CHECK(rc == ECHOMQ_EOOM);
  CHECK(keyspace_diff(before, raw.snapshot()) == "");
}

}  // namespace

TEST_CASE("a full server refuses enqueue with EOOM and writing nothing, and drains to empty",
          "[oom]") {
  // The scripts' cache counts as used memory (about 2.6 MB with every
  // script loaded, 0.5.0): the limit leaves room for enough jobs that
  // draining them frees more than the scripts the drain loads take.
  PrivateServer server(free_port(), "--maxmemory 5mb --maxmemory-policy noeviction");
  server.start();
  RawValkey raw("127.0.0.1", server.port());
  ClientPtr c = connect_client(nullptr, server.url());
  const std::string q = fresh_queue("oom");
  const std::string payload(1024, 'p');

  // Fill in batches until the server refuses.
  uint64_t enqueued = 0;
  int rc = ECHOMQ_OK;
  for (int round = 0; round < 1000 && rc == ECHOMQ_OK; ++round) {
    BatchPtr b(echomq_batch_create());
    for (int i = 0; i < 50; ++i) {
      const std::string group = "g" + std::to_string((round * 50 + i) % 7);
      REQUIRE(echomq_batch_add(b.get(), group.c_str(), payload.data(), payload.size()) == ECHOMQ_OK);
    }
    rc = echomq_enqueue_batch(c.get(), q.c_str(), b.get(), nullptr);
    if (rc == ECHOMQ_OK) enqueued += 50;
  }
  INFO("filling stopped after " << enqueued << " jobs with " << describe(c.get(), rc));
  REQUIRE(rc == ECHOMQ_EOOM);
  REQUIRE(enqueued > 0);

  require_oom(raw, c.get(), "enqueue", [&] {
    return echomq_enqueue(c.get(), q.c_str(), "g1", payload.data(), payload.size(), nullptr,
                          nullptr);
  });
  require_oom(raw, c.get(), "enqueue on a new lane", [&] {
    return echomq_enqueue(c.get(), q.c_str(), "new-lane", "x", 1, nullptr, nullptr);
  });
  require_oom(raw, c.get(), "set_weight", [&] {
    return echomq_set_weight(c.get(), q.c_str(), "g2", 5);
  });

  // Drain with every settling call while the server stays full.
  uint64_t acked = 0;
  {
    JobPtr j = claim(c.get(), q, kLease);
    REQUIRE(j);
    EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), echomq_job_id(j.get()),
                                          echomq_job_token(j.get()), kLease, nullptr));
    int outcome = 0;
    EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), echomq_job_id(j.get()),
                                        echomq_job_token(j.get()), "retry", 0, &outcome));
    CHECK(outcome == ECHOMQ_FAIL_RETRY);
    echomq_job *b = nullptr;
    EMQ_REQUIRE_OK(c.get(), echomq_bclaim(c.get(), q.c_str(), kLease, 1000, &b));
    JobPtr blocked(b);
    ack(c.get(), q, blocked.get());
    ++acked;
  }
  JobListPtr list = wclaim(c.get(), q, kLease, 10);
  REQUIRE(list);
  {
    std::vector<uint64_t> ids, tokens;
    for (size_t i = 0; i < echomq_job_list_count(list.get()); ++i) {
      ids.push_back(echomq_job_id(echomq_job_list_at(list.get(), i)));
      tokens.push_back(echomq_job_token(echomq_job_list_at(list.get(), i)));
    }
    size_t n = 0;
    EMQ_REQUIRE_OK(c.get(), echomq_ack_many(c.get(), q.c_str(), ids.data(), tokens.data(),
                                            ids.size(), nullptr, &n));
    REQUIRE(n == ids.size());
    acked += n;
  }
  JobPtr held = claim(c.get(), q, kLease);
  while (held) {
    echomq_job *next = nullptr;
    const int st = echomq_ack_claim(c.get(), q.c_str(), echomq_job_id(held.get()),
                                    echomq_job_token(held.get()), kLease, &next);
    INFO("ack_claim -> " << describe(c.get(), st));
    REQUIRE((st == ECHOMQ_OK || st == ECHOMQ_EMPTY));
    ++acked;
    held.reset(next);
  }
  CHECK(acked == enqueued);
  const echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  CHECK(s.delayed == 0);
  CHECK(s.dead == 0);
  CHECK(s.acked_total == enqueued);
  require_verified(c.get(), q);

  // The drained server takes work again.
  enqueue(c.get(), q, "g1", "after");
  require_verified(c.get(), q);
}
