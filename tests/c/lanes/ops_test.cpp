// Everyday operations: idempotent enqueue (one job and batches), a job by
// id, delete, purge, the list of queues, which attempt of its budget a
// redriven job is, and what a stale settlement says.
#include "test_env.hpp"

#include <algorithm>
#include <string>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

echomq_enqueue_options keyed(const char *key, int64_t window_ms = 0) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.idempotency_key = key;
  o.dedup_window_ms = window_ms;
  return o;
}

}  // namespace

TEST_CASE("an idempotency key enqueues once within its window", "[ops]") {
  auto c = connect_client();
  const std::string q = fresh_queue("idem");
  echomq_enqueue_options o = keyed("order-17");
  uint64_t first = 0, again = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "a", "x", 1, &o, &first));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_DUPLICATE,
                     echomq_enqueue(c.get(), q.c_str(), "b", "y", 1, &o, &again));
  CHECK(again == first);
  CHECK(stats(c.get(), q).pending == 1);
  // Another key is another job; a short window forgets the key.
  echomq_enqueue_options other = keyed("order-18", 50);
  uint64_t id2 = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "a", "z", 1, &other, &id2));
  CHECK(id2 == first + 1);
  sleep_ms(80);
  uint64_t id3 = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "a", "z", 1, &other, &id3));
  CHECK(id3 == id2 + 1);
  // A version-1 caller passes no key and never gets a duplicate.
  echomq_enqueue_options v1{};
  REQUIRE(echomq_enqueue_options_init(&v1, ECHOMQ_ENQUEUE_OPTIONS_VERSION_1) == ECHOMQ_OK);
  CHECK(v1.version == 1u);
  uint64_t plain = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "a", "x", 1, &v1, &plain));
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "a", "x", 1, &v1, &plain));
  CHECK(stats(c.get(), q).pending == 5);
  require_verified(c.get(), q);
}

TEST_CASE("bad idempotency keys and windows are refused before any I/O", "[ops]") {
  auto c = connect_client();
  const std::string q = fresh_queue("idembad");
  std::string longkey(ECHOMQ_DEDUP_KEY_MAX + 1, 'k');
  echomq_enqueue_options o = keyed(longkey.c_str());
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue(c.get(), q.c_str(), "a", "x", 1, &o, nullptr));
  o = keyed("");
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue(c.get(), q.c_str(), "a", "x", 1, &o, nullptr));
  o = keyed("k", ECHOMQ_DEDUP_WINDOW_MAX_MS + 1);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue(c.get(), q.c_str(), "a", "x", 1, &o, nullptr));
  CHECK(stats(c.get(), q).enqueued_total == 0);
}

TEST_CASE("a keyed batch enqueues the new entries and names the duplicates", "[ops]") {
  auto c = connect_client();
  const std::string q = fresh_queue("idembatch");
  echomq_enqueue_options o = keyed("seen");
  uint64_t seen = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "a", "0", 1, &o, &seen));
  echomq_batch *b = echomq_batch_create();
  REQUIRE(b);
  REQUIRE(echomq_batch_add_keyed(b, "a", "1", 1, "seen") == ECHOMQ_OK);   // seen before
  REQUIRE(echomq_batch_add_keyed(b, "b", "2", 1, "new") == ECHOMQ_OK);
  REQUIRE(echomq_batch_add_keyed(b, "b", "3", 1, "new") == ECHOMQ_OK);    // same call
  REQUIRE(echomq_batch_add_keyed(b, "c", "4", 1, nullptr) == ECHOMQ_OK);  // no key
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), b, nullptr));
  CHECK(echomq_batch_id(b, 0) == seen);
  CHECK(echomq_batch_duplicate(b, 0) == 1);
  CHECK(echomq_batch_duplicate(b, 1) == 0);
  CHECK(echomq_batch_duplicate(b, 2) == 1);
  CHECK(echomq_batch_id(b, 2) == echomq_batch_id(b, 1));
  CHECK(echomq_batch_duplicate(b, 3) == 0);
  CHECK(echomq_batch_id(b, 3) == echomq_batch_id(b, 1) + 1);
  echomq_batch_free(b);
  CHECK(stats(c.get(), q).pending == 3);
  require_verified(c.get(), q);
}

TEST_CASE("a job is found by id in every state", "[ops]") {
  auto c = connect_client();
  const std::string q = fresh_queue("getjob");
  echomq_enqueue_options two = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  two.max_attempts = 2;
  uint64_t id = enqueue(c.get(), q, "lane-a", "hello", &two);
  auto j = get_job(c.get(), q, id);
  CHECK(echomq_job_state_of(j.get()) == ECHOMQ_JOB_PENDING);
  CHECK(std::string(echomq_job_group(j.get())) == "lane-a");
  CHECK(payload_of(j.get()) == "hello");
  CHECK(echomq_job_token(j.get()) == 0);
  CHECK(echomq_job_max_attempts(j.get()) == 2);
  CHECK(echomq_job_enqueued_at_ms(j.get()) > 0);

  auto got = claim(c.get(), q, kLease);
  j = get_job(c.get(), q, id);
  CHECK(echomq_job_state_of(j.get()) == ECHOMQ_JOB_LEASED);
  CHECK(echomq_job_lease_until_ms(j.get()) == echomq_job_lease_until_ms(got.get()));
  CHECK(echomq_job_token(j.get()) == echomq_job_token(got.get()));
  CHECK(echomq_job_attempt(j.get()) == 1);

  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(got.get()), "boom", 60000, nullptr));
  j = get_job(c.get(), q, id);
  CHECK(echomq_job_state_of(j.get()) == ECHOMQ_JOB_DELAYED);
  CHECK(echomq_job_due_at_ms(j.get()) > echomq_job_enqueued_at_ms(j.get()));
  CHECK(std::string(echomq_job_last_error(j.get())) == "boom");

  uint64_t other = enqueue(c.get(), q, "lane-b", "x", &two);
  auto h = claim(c.get(), q, kLease);
  REQUIRE(echomq_job_id(h.get()) == other);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), other, echomq_job_token(h.get()), "bad", ECHOMQ_RETRY_DEAD, nullptr));
  j = get_job(c.get(), q, other);
  CHECK(echomq_job_state_of(j.get()) == ECHOMQ_JOB_DEAD);
  CHECK(echomq_job_dead_at_ms(j.get()) > 0);

  echomq_job *none = nullptr;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_get_job(c.get(), q.c_str(), 999999, &none));
  CHECK(none == nullptr);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_get_job(c.get(), q.c_str(), 0, &none));
}

TEST_CASE("delete removes pending, delayed and dead jobs, not leased ones", "[ops]") {
  auto c = connect_client();
  const std::string q = fresh_queue("delete");
  uint64_t p = enqueue(c.get(), q, "a", "pending");
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 60000;
  uint64_t d = enqueue(c.get(), q, "a", "delayed", &later);
  uint64_t l = enqueue(c.get(), q, "b", "leased");
  uint64_t x = enqueue(c.get(), q, "c", "dies");
  // Claim b and c (a's pending job is deleted first so the ring serves them).
  EMQ_REQUIRE_OK(c.get(), echomq_delete_job(c.get(), q.c_str(), p));
  CHECK(lane(c.get(), q, "a").serviceable == 0);
  auto jb = claim(c.get(), q, kLease);
  auto jc = claim(c.get(), q, kLease);
  REQUIRE(echomq_job_id(jb.get()) == l);
  REQUIRE(echomq_job_id(jc.get()) == x);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), x, echomq_job_token(jc.get()), "no",
                                      ECHOMQ_RETRY_DEAD, nullptr));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ELEASED, echomq_delete_job(c.get(), q.c_str(), l));
  CHECK(stats(c.get(), q).leased == 1);
  EMQ_REQUIRE_OK(c.get(), echomq_delete_job(c.get(), q.c_str(), d));
  EMQ_REQUIRE_OK(c.get(), echomq_delete_job(c.get(), q.c_str(), x));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ENOTFOUND, echomq_delete_job(c.get(), q.c_str(), x));
  echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.pending == 0);
  CHECK(s.delayed == 0);
  CHECK(s.dead == 0);
  CHECK(s.leased == 1);
  CHECK(s.lanes == 1);  // only b, with its leased job
  require_verified(c.get(), q);
  ack(c.get(), q, jb.get());
  require_verified(c.get(), q);
}

TEST_CASE("purge empties a lane in bounded steps and keeps its settings", "[ops]") {
  auto c = connect_client();
  const std::string q = fresh_queue("purge");
  for (int i = 0; i < 25; ++i) enqueue(c.get(), q, "big", "p");
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 60000;
  for (int i = 0; i < 7; ++i) {
    enqueue(c.get(), q, "big", "d", &later);
    enqueue(c.get(), q, "other", "d", &later);
  }
  enqueue(c.get(), q, "other", "keep");
  auto held = claim(c.get(), q, kLease);  // one of big's runs on
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), q.c_str(), "big", 5));
  uint64_t cursor = 0, removed = 0, total = 0;
  int more = 1, calls = 0;
  while (more) {
    EMQ_REQUIRE_OK(c.get(), echomq_purge_lane(c.get(), q.c_str(), "big", 4, 0, &cursor, &removed, &more));
    CHECK(removed <= 4);
    total += removed;
    ++calls;
    REQUIRE(calls < 50);
  }
  CHECK(cursor == 0);
  CHECK(total == 24 + 7);
  CHECK(calls > 8);
  echomq_lane_info big = lane(c.get(), q, "big");
  CHECK(big.depth == 0);
  CHECK(big.delayed == 0);
  CHECK(big.active == 1);
  CHECK(big.weight == 5);
  CHECK(big.weight_is_default == 0);
  CHECK(lane(c.get(), q, "other").delayed == 7);
  CHECK(lane(c.get(), q, "other").depth == 1);
  require_verified(c.get(), q);
  // Clearing the settings too; a purge of an empty lane is a no-op.
  EMQ_REQUIRE_OK(c.get(), echomq_purge_lane_all(c.get(), q.c_str(), "big", 1, &removed));
  CHECK(removed == 0);
  CHECK(lane(c.get(), q, "big").weight_is_default == 1);
  ack(c.get(), q, held.get());
  require_verified(c.get(), q);
  CHECK(lane(c.get(), q, "big").known == 0);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL,
                     echomq_purge_lane(c.get(), q.c_str(), "big", 0, 0, &cursor, &removed, &more));
}

TEST_CASE("queues lists the queues of the server", "[ops]") {
  auto c = connect_client();
  const std::string q1 = fresh_queue("listed1"), q2 = fresh_queue("listed2");
  enqueue(c.get(), q1, "a", "x");
  enqueue(c.get(), q2, "a", "x");
  echomq_report *r = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_queues(c.get(), &r));
  std::vector<std::string> names;
  for (size_t i = 0; i < echomq_report_count(r); ++i) names.push_back(echomq_report_at(r, i));
  echomq_report_free(r);
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::count(names.begin(), names.end(), q1) == 1);
  CHECK(std::count(names.begin(), names.end(), q2) == 1);
}

TEST_CASE("after a redrive the attempt counts within the fresh budget", "[ops]") {
  auto c = connect_client();
  const std::string q = fresh_queue("attempt");
  echomq_enqueue_options two = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  two.max_attempts = 2;
  uint64_t id = enqueue(c.get(), q, "a", "x", &two);
  for (uint64_t t = 1; t <= 2; ++t) {
    auto j = claim(c.get(), q, kLease);
    CHECK(echomq_job_attempt(j.get()) == t);
    EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "x", 0, nullptr));
  }
  EMQ_REQUIRE_OK(c.get(), echomq_redrive(c.get(), q.c_str(), &id, 1, nullptr));
  auto j = claim(c.get(), q, kLease);
  CHECK(echomq_job_attempt(j.get()) == 1);
  CHECK(echomq_job_max_attempts(j.get()) == 2);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "x", 0, nullptr));
  j = claim(c.get(), q, kLease);
  CHECK(echomq_job_attempt(j.get()) == 2);
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "x", 0, nullptr));
  echomq_job_list *dead = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_dead(c.get(), q.c_str(), 0, 10, &dead));
  REQUIRE(echomq_job_list_count(dead) == 1);
  CHECK(echomq_job_token(echomq_job_list_at(dead, 0)) == echomq_job_token(j.get()));  // its last delivery's
  CHECK(echomq_job_attempt(echomq_job_list_at(dead, 0)) == 2);
  echomq_job_list_free(dead);
}

TEST_CASE("a stale settlement says whether the job was delivered again or is no longer leased", "[ops]") {
  auto c = connect_client();
  const std::string q = fresh_queue("stalemsg");
  uint64_t id = enqueue(c.get(), q, "a", "x");
  auto first = claim(c.get(), q, 50);
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "a"));
  sleep_ms(80);
  // A claim brings the expired lease back to its (paused) lane: the job is
  // pending again and token 1 is still its last delivery.
  echomq_job *none = nullptr;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EMPTY, echomq_claim(c.get(), q.c_str(), kLease, &none));
  const uint64_t t1 = echomq_job_token(first.get());
  const std::string tok1 = "token " + std::to_string(t1);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ESTALE, echomq_ack(c.get(), q.c_str(), id, t1));
  std::string msg = echomq_client_errmsg(c.get());
  INFO(msg);
  CHECK(msg.find("is no longer leased with " + tok1 + ": it is back in its lane") != std::string::npos);
  CHECK(msg.find("current") == std::string::npos);
  EMQ_REQUIRE_OK(c.get(), echomq_resume(c.get(), q.c_str(), "a"));
  auto again = claim(c.get(), q, kLease);
  REQUIRE(echomq_job_token(again.get()) != t1);
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ESTALE, echomq_ack(c.get(), q.c_str(), id, t1));
  msg = echomq_client_errmsg(c.get());
  INFO(msg);
  CHECK(msg.find(tok1 + " is stale") != std::string::npos);
  CHECK(msg.find("current token " + std::to_string(echomq_job_token(again.get()))) != std::string::npos);
  ack(c.get(), q, again.get());
  // Failed to the delayed set: the holder's own token, no longer leased.
  id = enqueue(c.get(), q, "a", "y");
  auto j = claim(c.get(), q, kLease);
  const uint64_t tj = echomq_job_token(j.get());
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, tj, "r", 60000, nullptr));
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ESTALE, echomq_ack(c.get(), q.c_str(), id, tj));
  msg = echomq_client_errmsg(c.get());
  INFO(msg);
  CHECK(msg.find("is no longer leased with token " + std::to_string(tj) + ": it is waiting for a retry") !=
        std::string::npos);
}
