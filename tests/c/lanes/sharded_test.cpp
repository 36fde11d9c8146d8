// Sharded queues on one server: the record, routing by group, ids that
// carry their shard, the rotation over shards and its fairness bound, and
// every call of the API on a sharded queue's name. (tests/c/cluster runs
// them over three primaries.)
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

#include "engine_drain.hpp"
#include "test_env.hpp"

using namespace emqtest;

namespace {

/// The shard (index) whose queue knows lane g.
size_t shard_of(echomq_client *c, const std::vector<std::string> &shards, const std::string &g) {
  size_t found = shards.size(), count = 0;
  for (size_t i = 0; i < shards.size(); ++i)
    if (lane(c, shards[i], g).known) {
      found = i;
      ++count;
    }
  REQUIRE(count == 1);  // a lane lives in exactly one shard
  return found;
}

}  // namespace

TEST_CASE("a sharded queue is created once, opened with the same count, and refused with another",
          "[shards]") {
  ClientPtr c = connect_client();
  const std::string q = fresh_queue("sh-create");
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 3));
  const std::vector<std::string> names = shard_names(c.get(), q);
  REQUIRE(names.size() == 3);
  for (size_t i = 0; i < names.size(); ++i) CHECK(names[i].rfind(q + ".s" + std::to_string(i) + "-", 0) == 0);
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 3));  // opens it
  CHECK(shard_names(c.get(), q) == names);

  int rc = echomq_shards_create(c.get(), q.c_str(), 4);
  INFO(describe(c.get(), rc));
  CHECK(rc == ECHOMQ_ESHARDS);
  CHECK(shard_names(c.get(), q) == names);  // nothing changed
  CHECK(echomq_shards_create(c.get(), q.c_str(), 0) == ECHOMQ_EINVAL);
  CHECK(echomq_shards_create(c.get(), q.c_str(), ECHOMQ_SHARDS_MAX + 1) == ECHOMQ_EINVAL);
  CHECK(echomq_shards_create(c.get(), std::string(ECHOMQ_QUEUE_NAME_MAX - 2, 'x').c_str(), 2) == ECHOMQ_EINVAL);

  // A plain queue in use cannot become sharded; it stays as it was.
  const std::string plain = fresh_queue("sh-plain");
  enqueue(c.get(), plain, "a", "x");
  rc = echomq_shards_create(c.get(), plain.c_str(), 2);
  INFO(describe(c.get(), rc));
  CHECK(rc == ECHOMQ_ESHARDS);
  CHECK(shard_names(c.get(), plain).empty());
  CHECK(stats(c.get(), plain).pending == 1);
}

TEST_CASE("a sharded queue is used by its name: lanes by group, ids that find their shard, figures summed",
          "[shards]") {
  ClientPtr c = connect_client();
  const std::string q = fresh_queue("sh-use");
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 3));
  const std::vector<std::string> shards = shard_names(c.get(), q);
  constexpr int kLanes = 12, kPer = 5;
  std::map<uint64_t, std::string> group_of;
  for (int j = 0; j < kPer; ++j)
    for (int g = 0; g < kLanes; ++g) {
      const std::string grp = "g" + std::to_string(g);
      group_of[enqueue(c.get(), q, grp, grp + ":" + std::to_string(j))] = grp;
    }
  REQUIRE(group_of.size() == static_cast<size_t>(kLanes * kPer));  // ids unique across shards
  std::set<size_t> used;
  for (int g = 0; g < kLanes; ++g) {
    const std::string grp = "g" + std::to_string(g);
    const size_t s = shard_of(c.get(), shards, grp);
    used.insert(s);
    CHECK(lane(c.get(), shards[s], grp).depth == kPer);
    CHECK(lane(c.get(), q, grp).depth == kPer);  // the lane call finds it by name
    for (const auto &[id, g2] : group_of)
      if (g2 == grp) CHECK(id % shards.size() == s);  // the id names its shard
  }
  CHECK(used.size() == 3);  // twelve groups hash to every shard

  echomq_queue_stats st = stats(c.get(), q);
  CHECK(st.pending == kLanes * kPer);
  CHECK(st.lanes == kLanes);
  CHECK(st.enqueued_total == kLanes * kPer);
  uint64_t sum = 0;
  for (const std::string &s : shards) sum += stats(c.get(), s).pending;
  CHECK(sum == st.pending);

  // Lanes page through every shard in name order, each lane once.
  std::vector<std::string> seen;
  std::string after;
  for (int page = 0; page < 20; ++page) {
    echomq_lane_list *l = nullptr;
    EMQ_REQUIRE_OK(c.get(), echomq_lanes(c.get(), q.c_str(), after.empty() ? nullptr : after.c_str(), 5, &l));
    for (size_t i = 0; i < echomq_lane_list_count(l); ++i) seen.push_back(echomq_lane_list_at(l, i)->group);
    const char *next = echomq_lane_list_next(l);
    after = next ? next : "";
    echomq_lane_list_free(l);
    if (after.empty()) break;
  }
  std::vector<std::string> want;
  for (int g = 0; g < kLanes; ++g) want.push_back("g" + std::to_string(g));
  std::sort(want.begin(), want.end());
  CHECK(seen == want);

  // Claim, look up, fail, extend, ack, delete, dead-letter and redrive by the ids the queue gave.
  JobPtr a = claim(c.get(), q, 60000);
  REQUIRE(a);
  const uint64_t aid = echomq_job_id(a.get());
  CHECK(group_of.at(aid) == echomq_job_group(a.get()));
  echomq_job *got = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_get_job(c.get(), q.c_str(), aid, &got));
  CHECK(echomq_job_id(got) == aid);
  CHECK(echomq_job_state_of(got) == ECHOMQ_JOB_LEASED);
  echomq_job_free(got);
  int64_t until = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_extend(c.get(), q.c_str(), aid, echomq_job_token(a.get()), 90000, &until));
  ack(c.get(), q, a.get());
  // A second ack is stale (the shard minted the id), as on a plain queue.
  CHECK(echomq_ack(c.get(), q.c_str(), aid, echomq_job_token(a.get())) == ECHOMQ_ESTALE);

  JobPtr b = claim(c.get(), q, 60000);
  REQUIRE(b);
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), echomq_job_id(b.get()), echomq_job_token(b.get()),
                                      "boom", ECHOMQ_RETRY_DEAD, &outcome));
  CHECK(outcome == ECHOMQ_FAIL_DEAD);
  echomq_job_list *dead = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_dead(c.get(), q.c_str(), 0, 10, &dead));
  REQUIRE(echomq_job_list_count(dead) == 1);
  CHECK(echomq_job_id(echomq_job_list_at(dead, 0)) == echomq_job_id(b.get()));
  echomq_job_list_free(dead);
  const uint64_t bid = echomq_job_id(b.get());
  uint64_t redriven = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_redrive(c.get(), q.c_str(), &bid, 1, &redriven));
  CHECK(redriven == 1);

  uint64_t victim = 0;
  for (const auto &[id, g] : group_of)
    if (id != aid && id != bid) victim = id;
  EMQ_REQUIRE_OK(c.get(), echomq_delete_job(c.get(), q.c_str(), victim));
  CHECK(echomq_get_job(c.get(), q.c_str(), victim, &got) == ECHOMQ_ENOTFOUND);
  CHECK(echomq_get_job(c.get(), q.c_str(), 1, &got) == ECHOMQ_EINVAL);  // below the shard count: no job

  st = stats(c.get(), q);
  CHECK(st.pending == kLanes * kPer - 2);  // one acked, one deleted (the redriven one is back)
  CHECK(st.acked_total == 1);
  require_verified(c.get(), q);
  // Repair walks every shard, step by step, and finds nothing to change.
  // (A step's SCAN covers part of the whole keyspace: the count of steps
  // depends on the server's size, not on this queue.)
  std::string cursor;
  std::set<std::string> shards_walked;
  int steps = 0;
  do {
    echomq_report *r = nullptr;
    EMQ_REQUIRE_OK(c.get(), echomq_repair(c.get(), q.c_str(), 0, cursor.c_str(), 500, &r));
    CHECK(echomq_report_count(r) == 0);
    const char *next = echomq_report_cursor(r);
    cursor = next ? next : "";
    if (!cursor.empty()) shards_walked.insert(cursor.substr(0, cursor.find(':')));
    echomq_report_free(r);
    ++steps;
  } while (!cursor.empty() && steps < 100000);
  CHECK(cursor.empty());
  CHECK(shards_walked.count("1") == 1);  // the walk went on to the second shard
  CHECK(shards_walked.count("2") == 1);  // and to the third
}

TEST_CASE("claims rotate over the shards: a lane's share is 1/(shards x lanes in its shard) per round",
          "[shards]") {
  ClientPtr c = connect_client();
  const std::string q = fresh_queue("sh-fair");
  constexpr size_t kShards = 3;
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), kShards));
  const std::vector<std::string> shards = shard_names(c.get(), q);
  constexpr int kLanes = 9, kDepth = 40;
  for (int j = 0; j < kDepth; ++j)
    for (int g = 0; g < kLanes; ++g) enqueue(c.get(), q, "L" + std::to_string(g), "x");
  std::map<std::string, size_t> home;
  std::vector<int> lanes_in(kShards, 0);
  for (int g = 0; g < kLanes; ++g) {
    const std::string grp = "L" + std::to_string(g);
    home[grp] = shard_of(c.get(), shards, grp);
    ++lanes_in[home[grp]];
  }
  // R rounds of the shard ring, R a multiple of every shard's lane count:
  // each shard serves R claims, so each of its lanes R / (its lanes).
  int rounds = 1;
  for (int n : lanes_in)
    if (n > 0) rounds = std::lcm(rounds, n);
  while (rounds < 6) rounds *= 2;
  const int busy = static_cast<int>(std::count_if(lanes_in.begin(), lanes_in.end(), [](int n) { return n > 0; }));
  std::map<std::string, int> served;
  for (int k = 0; k < rounds * busy; ++k) {
    JobPtr j = claim(c.get(), q, 60000);
    REQUIRE(j);
    ++served[echomq_job_group(j.get())];
    ack(c.get(), q, j.get());
  }
  for (const auto &[grp, s] : home) {
    INFO("lane " << grp << " in shard " << s << " with " << lanes_in[s] << " lanes");
    CHECK(served[grp] == rounds / lanes_in[s]);
  }
  require_verified(c.get(), q);
}

TEST_CASE("a client that knew a queue as plain follows it once it is sharded", "[shards]") {
  ClientPtr old = connect_client(), admin = connect_client();
  const std::string q = fresh_queue("sh-stale");
  echomq_report *r = nullptr;
  int worst = 0;
  EMQ_REQUIRE_OK(old.get(), echomq_doctor(old.get(), q.c_str(), nullptr, &r, &worst));  // reads the record: plain
  echomq_report_free(r);
  EMQ_REQUIRE_OK(admin.get(), echomq_shards_create(admin.get(), q.c_str(), 2));
  const uint64_t id = enqueue(old.get(), q, "tenant", "x");  // refused by the script, then routed
  const std::vector<std::string> shards = shard_names(admin.get(), q);
  const size_t s = shard_of(admin.get(), shards, "tenant");
  CHECK(id % 2 == s);
  CHECK(stats(admin.get(), shards[s]).pending == 1);
  JobPtr j = claim(old.get(), q, 60000);
  REQUIRE(j);
  CHECK(echomq_job_id(j.get()) == id);
  ack(old.get(), q, j.get());
  require_verified(admin.get(), q);
}

TEST_CASE("the worker engine drains a sharded queue, each job once, and wakes for new work",
          "[shards][worker]") {
  ClientPtr c = connect_client();
  const std::string q = fresh_queue("sh-engine");
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 4));
  constexpr int kJobs = 600, kLanes = 30;
  for (int i = 0; i < kJobs; ++i) enqueue(c.get(), q, "t" + std::to_string(i % kLanes), "job");
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 8;
  o.idle_wait_ms = 2000;
  echomq_worker *w = nullptr;
  REQUIRE(echomq_worker_new(&w, server_url().c_str(), q.c_str(), &o) == ECHOMQ_OK);
  WorkerPtr engine(w);
  REQUIRE(echomq_worker_start(w) == ECHOMQ_OK);
  EngineDrain d;
  d.run(w, 3);
  d.wait_for(kJobs, 30000);
  // Idle now: a new job in any shard is handed out promptly (the wait
  // rotates over the shards in slices).
  sleep_ms(300);
  const int64_t t0 = mono_ms();
  enqueue(c.get(), q, "late-lane", "late");
  d.wait_for(kJobs + 1, 30000);
  const int64_t waited = mono_ms() - t0;
  CHECK(echomq_worker_stop(w, ECHOMQ_STOP_DRAIN, 10000) == ECHOMQ_OK);
  d.stop();
  d.require_each_once(kJobs + 1);
  INFO("the late job waited " << waited << " ms");
  CHECK(waited < 1500);
  const echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.acked_total == kJobs + 1);
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  require_verified(c.get(), q);
}

TEST_CASE("a blocking claim on a sharded queue waits for work in any shard and can be canceled",
          "[shards]") {
  ClientPtr c = connect_client(), p = connect_client();
  const std::string q = fresh_queue("sh-bclaim");
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 3));
  echomq_job *j = nullptr;
  CHECK(echomq_bclaim(c.get(), q.c_str(), 60000, 200, &j) == ECHOMQ_EMPTY);
  std::thread producer([&] {
    sleep_ms(200);
    enqueue(p.get(), q, "somebody", "x");
  });
  const int rc = echomq_bclaim(c.get(), q.c_str(), 60000, 5000, &j);
  producer.join();
  INFO(describe(c.get(), rc));
  REQUIRE(rc == ECHOMQ_OK);
  CHECK(echomq_job_group(j) == std::string("somebody"));
  EMQ_REQUIRE_OK(c.get(), echomq_ack(c.get(), q.c_str(), echomq_job_id(j), echomq_job_token(j)));
  echomq_job_free(j);

  std::thread canceler([&] {
    sleep_ms(200);
    echomq_client_cancel(c.get());
  });
  const int64_t t0 = mono_ms();
  j = nullptr;
  CHECK(echomq_bclaim(c.get(), q.c_str(), 60000, 10000, &j) == ECHOMQ_ECANCELED);
  canceler.join();
  CHECK(mono_ms() - t0 < 2000);
  CHECK(j == nullptr);
}

TEST_CASE("a sharded queue moves to another shard count through a second queue", "[shards][worker]") {
  // The procedure of docs/operations.md ("Changing N").
  ClientPtr c = connect_client();
  const std::string old_q = fresh_queue("sh-n2"), new_q = fresh_queue("sh-n3");
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), old_q.c_str(), 2));
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), old_q.c_str(), "t3", 4));
  constexpr int kOld = 200, kNew = 100, kLanes = 20;
  for (int i = 0; i < kOld; ++i) enqueue(c.get(), old_q, "t" + std::to_string(i % kLanes), "old");
  // The new queue with the new count and the lane settings carried over.
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), new_q.c_str(), 3));
  CHECK(echomq_shards_create(c.get(), old_q.c_str(), 3) == ECHOMQ_ESHARDS);  // N itself is fixed
  EMQ_REQUIRE_OK(c.get(), echomq_set_weight(c.get(), new_q.c_str(), "t3", lane(c.get(), old_q, "t3").weight));
  CHECK(lane(c.get(), new_q, "t3").weight == 4);
  // Producers write to the new queue; workers run on both.
  for (int i = 0; i < kNew; ++i) enqueue(c.get(), new_q, "t" + std::to_string(i % kLanes), "new");
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 8;
  EngineDrain d;
  for (const std::string &q : {old_q, new_q}) d.add_engine(server_url(), q, o, 1, 0, q);
  const int64_t deadline = mono_ms() + 30000;
  for (;;) {
    echomq_queue_stats s = stats(c.get(), old_q);
    if ((s.pending == 0 && s.leased == 0 && s.delayed == 0 && stats(c.get(), new_q).acked_total == kNew) ||
        mono_ms() > deadline)
      break;
    sleep_ms(20);
  }
  d.finish(kOld, 1000, old_q);
  d.require_each_once(kNew, new_q);
  CHECK(stats(c.get(), old_q).acked_total == kOld);
  require_verified(c.get(), old_q);
  require_verified(c.get(), new_q);
}

TEST_CASE("a tenant lives on one shard: its lanes and its own settings route by the tenant", "[shards][tenants]") {
  ClientPtr c = connect_client();
  const std::string q = fresh_queue("sh-tenant");
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 4));
  const std::vector<std::string> shards = shard_names(c.get(), q);
  for (int i = 0; i < 12; ++i) enqueue(c.get(), q, "acme/u" + std::to_string(i), "x");
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "acme/", 2));
  const size_t home = shard_of(c.get(), shards, "acme/u0");
  for (int i = 1; i < 12; ++i) CHECK(shard_of(c.get(), shards, "acme/u" + std::to_string(i)) == home);
  CHECK(shard_of(c.get(), shards, "acme/") == home);  // the tenant's own entry, with its limit
  std::vector<JobPtr> held;
  for (JobPtr j = claim(c.get(), q, 60000); j; j = claim(c.get(), q, 60000)) held.push_back(std::move(j));
  CHECK(held.size() == 2);  // the tenant's limit holds across all of its lanes
  for (const std::string &s : shards) require_verified(c.get(), s);
}
