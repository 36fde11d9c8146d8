// A queue is one hash slot: on a Valkey Cluster the client follows MOVED to
// the node that owns the queue's slot, whichever node it was pointed at,
// and every script stays single-slot. Runs against the three-master cluster
// the CTest fixture "valkey_cluster" starts (tests/valkey-cluster.sh).
#include <hiredis/hiredis.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine_drain.hpp"
#include "test_env.hpp"

using namespace emqtest;

namespace {

std::vector<std::string> cluster_urls() {
  const char *file = std::getenv("ECHOMQ_TEST_CLUSTER_FILE");
  REQUIRE(file != nullptr);
  std::ifstream in(file);
  std::vector<std::string> urls;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) urls.push_back(line);
  REQUIRE(urls.size() == 3);
  return urls;
}

int port_of(const std::string &url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

struct Raw {
  explicit Raw(int port) : c(redisConnect("127.0.0.1", port)) { REQUIRE((c && !c->err)); }
  ~Raw() { redisFree(c); }
  long long integer(const std::vector<std::string> &argv) {
    std::vector<const char *> p;
    std::vector<size_t> n;
    for (const auto &a : argv) {
      p.push_back(a.data());
      n.push_back(a.size());
    }
    auto *r = static_cast<redisReply *>(
        redisCommandArgv(c, static_cast<int>(p.size()), p.data(), n.data()));
    REQUIRE(r != nullptr);
    INFO(argv[0] << " replied type " << r->type);
    REQUIRE(r->type == REDIS_REPLY_INTEGER);
    long long v = r->integer;
    freeReplyObject(r);
    return v;
  }
  /// A command answering with a string or status (not an error).
  std::string text(const std::vector<std::string> &argv) {
    std::vector<const char *> p;
    std::vector<size_t> n;
    for (const auto &a : argv) {
      p.push_back(a.data());
      n.push_back(a.size());
    }
    auto *r = static_cast<redisReply *>(
        redisCommandArgv(c, static_cast<int>(p.size()), p.data(), n.data()));
    REQUIRE(r != nullptr);
    std::string out(r->str ? r->str : "", r->str ? r->len : 0);
    INFO(argv[0] << " replied " << out);
    REQUIRE((r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_STRING));
    freeReplyObject(r);
    return out;
  }
  redisContext *c;
};

/// The node (index in urls) whose keyspace holds keys of the slot.
size_t owner_of(const std::vector<std::string> &urls, long long slot) {
  size_t owner = urls.size();
  for (size_t i = 0; i < urls.size(); ++i)
    if (Raw(port_of(urls[i])).integer({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}) > 0)
      owner = i;
  REQUIRE(owner < urls.size());
  return owner;
}

}  // namespace

TEST_CASE("every node of a cluster serves a queue through MOVED redirects", "[cluster]") {
  const std::vector<std::string> urls = cluster_urls();
  const std::string q = fresh_queue("cluster");
  const std::string seq = "emq:{" + q + "}:seq";
  const long long slot = Raw(port_of(urls[0])).integer({"CLUSTER", "KEYSLOT", seq});
  int owner = -1;  // the node holding the queue's keys, seen after the first round
  int redirected = 0;
  uint64_t expected_jobs = 0;
  for (size_t entry = 0; entry < urls.size(); ++entry) {
    INFO("entry node " << urls[entry]);
    ClientPtr c = connect_client(nullptr, urls[entry]);
    const std::string lane = "tenant-" + std::to_string(entry);
    const uint64_t id = enqueue(c.get(), q, lane, "payload");
    ++expected_jobs;
    JobPtr job = claim(c.get(), q, 60000);
    REQUIRE(job);
    CHECK(echomq_job_id(job.get()) == id);
    ack(c.get(), q, job.get());
    echomq_queue_stats s = stats(c.get(), q);
    CHECK(s.acked_total == expected_jobs);
    require_verified(c.get(), q);
    // The queue's keys live on exactly one node: the slot's owner.
    for (size_t i = 0; i < urls.size(); ++i) {
      Raw raw(port_of(urls[i]));
      if (raw.integer({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}) > 0) {
        if (owner < 0) owner = static_cast<int>(i);
        CHECK(owner == static_cast<int>(i));
      }
    }
    if (owner >= 0 && static_cast<size_t>(owner) != entry) ++redirected;
  }
  REQUIRE(owner >= 0);
  // Two of the three entry nodes do not own the slot: both were redirected.
  CHECK(redirected == 2);
  Raw raw(port_of(urls[static_cast<size_t>(owner)]));
  CHECK(raw.integer({"EXISTS", seq}) == 1);
}

TEST_CASE("a queue whose slot is being migrated gets ETRYAGAIN and changes nothing",
          "[cluster]") {
  const std::vector<std::string> urls = cluster_urls();
  const std::string q = fresh_queue("migrating");
  const std::string seq = "emq:{" + q + "}:seq";
  ClientPtr c = connect_client(nullptr, urls[0]);
  enqueue(c.get(), q, "a", "one");
  const long long slot = Raw(port_of(urls[0])).integer({"CLUSTER", "KEYSLOT", seq});
  const size_t owner = owner_of(urls, slot);
  const size_t target = (owner + 1) % urls.size();
  Raw from(port_of(urls[owner]));
  const std::string target_id = Raw(port_of(urls[target])).text({"CLUSTER", "MYID"});
  ClientPtr direct = connect_client(nullptr, urls[owner]);
  const echomq_queue_stats before = stats(direct.get(), q);

  // Some of the script's keys exist on the owner and some do not: while the
  // slot is MIGRATING the server answers TRYAGAIN instead of running it.
  from.text({"CLUSTER", "SETSLOT", std::to_string(slot), "MIGRATING", target_id});
  struct Stable {
    Raw &raw;
    long long slot;
    ~Stable() {
      redisReply *r = static_cast<redisReply *>(
          redisCommand(raw.c, "CLUSTER SETSLOT %lld STABLE", slot));
      if (r) freeReplyObject(r);
    }
  } stable{from, slot};
  const int rc = echomq_enqueue(direct.get(), q.c_str(), "a", "two", 3, nullptr, nullptr);
  INFO("enqueue into a migrating slot -> " << describe(direct.get(), rc));
  CHECK(rc == ECHOMQ_ETRYAGAIN);
  echomq_job *j = nullptr;
  const int rc2 = echomq_claim(direct.get(), q.c_str(), 60000, &j);
  INFO("claim from a migrating slot -> " << describe(direct.get(), rc2));
  CHECK(rc2 == ECHOMQ_ETRYAGAIN);
  echomq_job_free(j);

  from.text({"CLUSTER", "SETSLOT", std::to_string(slot), "STABLE"});
  const echomq_queue_stats after = stats(direct.get(), q);
  CHECK(after.pending == before.pending);
  CHECK(after.enqueued_total == before.enqueued_total);
  CHECK(after.leased == 0);
  enqueue(direct.get(), q, "a", "three");  // works again once the slot is stable
  require_verified(direct.get(), q);
}

namespace {

/// Every key of a slot that `from` still holds, moved to `to_port` by
/// MIGRATE, a few keys at a time with a pause between, so the move takes
/// long enough for the workers to run into it many times.
void migrate_slot_keys(Raw &from, int to_port, long long slot) {
  for (;;) {
    auto *r = static_cast<redisReply *>(
        redisCommand(from.c, "CLUSTER GETKEYSINSLOT %lld 3", slot));
    REQUIRE(r != nullptr);
    REQUIRE(r->type == REDIS_REPLY_ARRAY);
    std::vector<std::string> keys;
    for (size_t i = 0; i < r->elements; ++i) keys.emplace_back(r->element[i]->str, r->element[i]->len);
    freeReplyObject(r);
    if (keys.empty()) return;
    std::vector<std::string> argv{"MIGRATE", "127.0.0.1", std::to_string(to_port), "", "0", "5000", "KEYS"};
    argv.insert(argv.end(), keys.begin(), keys.end());
    CHECK(from.text(argv) == "OK");
    sleep_ms(20);
  }
}

/// Moves a slot from node `owner` to node `target` as valkey-cli --cluster
/// reshard does: IMPORTING / MIGRATING, the keys a few at a time, then the
/// new owner set on the new owner first, then the old one, then the
/// bystander (the order CLUSTER SETSLOT's documentation gives).
void move_slot(const std::vector<std::string> &urls, size_t owner, size_t target, long long slot) {
  Raw from(port_of(urls[owner])), to(port_of(urls[target]));
  const std::string from_id = from.text({"CLUSTER", "MYID"}), to_id = to.text({"CLUSTER", "MYID"});
  const std::string s = std::to_string(slot);
  to.text({"CLUSTER", "SETSLOT", s, "IMPORTING", from_id});
  from.text({"CLUSTER", "SETSLOT", s, "MIGRATING", to_id});
  migrate_slot_keys(from, port_of(urls[target]), slot);
  to.text({"CLUSTER", "SETSLOT", s, "NODE", to_id});
  from.text({"CLUSTER", "SETSLOT", s, "NODE", to_id});
  Raw(port_of(urls[3 - owner - target])).text({"CLUSTER", "SETSLOT", s, "NODE", to_id});
}

/// A producer that keeps adding `jobs` jobs over `lanes` lanes while a slot
/// moves: a refused enqueue (TRYAGAIN) changed nothing, so it is simply
/// sent again. Catch2 assertions belong to the test's thread: the producer
/// only records what it saw; check() asserts it after join().
struct LateProducer {
  std::atomic<int> refused{0}, unexpected{0};
  std::string unexpected_msg;
  ClientPtr client;
  std::thread thread;
  LateProducer(const std::string &url, const std::string &q, int jobs, int lanes)
      : client(connect_client(nullptr, url)) {
    thread = std::thread([this, q, jobs, lanes] {
      for (int i = 0; i < jobs && unexpected == 0; ++i) {
        for (;;) {
          const int rc = echomq_enqueue(client.get(), q.c_str(), ("t" + std::to_string(i % lanes)).c_str(), "late",
                                        4, nullptr, nullptr);
          if (rc == ECHOMQ_OK) break;
          if (rc != ECHOMQ_ETRYAGAIN) {  // nothing else is expected here
            unexpected_msg = describe(client.get(), rc);
            unexpected = rc;
            break;
          }
          ++refused;
          sleep_ms(5);
        }
        sleep_ms(2);
      }
    });
  }
  void check() {
    thread.join();
    INFO("enqueue during the move: " << unexpected_msg << "; refused " << refused.load() << " times");
    CHECK(unexpected == 0);
  }
};

}  // namespace

TEST_CASE("a queue's slot moves to another master while workers drain it and a producer adds to it",
          "[cluster]") {
  const std::vector<std::string> urls = cluster_urls();
  const std::string q = fresh_queue("resharded");
  const std::string seq = "emq:{" + q + "}:seq";
  constexpr int kBefore = 2000, kDuring = 500, kLanes = 25;
  ClientPtr c = connect_client(nullptr, urls[0]);
  for (int i = 0; i < kBefore; ++i) enqueue(c.get(), q, "t" + std::to_string(i % kLanes), "job");
  const long long slot = Raw(port_of(urls[0])).integer({"CLUSTER", "KEYSLOT", seq});
  const size_t owner = owner_of(urls, slot);
  const size_t target = (owner + 1) % urls.size();

  // Two engines on the owner, two host threads each, acking every job.
  EngineDrain d;
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 8;
  for (int e = 0; e < 2; ++e) d.add_engine(urls[owner], q, o, 2, 1);  // spread the drain over the migration
  LateProducer producer(urls[owner], q, kDuring, kLanes);
  sleep_ms(300);  // the drain is under way
  move_slot(urls, owner, target, slot);
  producer.check();
  d.finish(kBefore + kDuring, 60000);
  // Everything now lives on the new owner, and the queue is whole.
  CHECK(Raw(port_of(urls[owner])).integer({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}) == 0);
  CHECK(Raw(port_of(urls[target])).integer({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}) > 0);
  ClientPtr after = connect_client(nullptr, urls[target]);
  const echomq_queue_stats s = stats(after.get(), q);
  CHECK(s.acked_total == static_cast<uint64_t>(kBefore + kDuring));
  CHECK(s.enqueued_total == static_cast<uint64_t>(kBefore + kDuring));
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  require_verified(after.get(), q);
}

TEST_CASE("no script runs while its queue's slot is half moved, even when every key it names is still there",
          "[cluster]") {
  const std::vector<std::string> urls = cluster_urls();
  const std::string q = fresh_queue("half-moved");
  const std::string pre = "emq:{" + q + "}:";
  ClientPtr c = connect_client(nullptr, urls[0]);
  // A queue in which every fixed key enqueue names exists: settings, a held
  // job, a paused lane, a delayed job, a rate, a throttle, a cap.
  enqueue(c.get(), q, "a", "one");
  enqueue(c.get(), q, "held", "x");
  EMQ_REQUIRE_OK(c.get(), echomq_set_default_weight(c.get(), q.c_str(), 1));
  EMQ_REQUIRE_OK(c.get(), echomq_set_limit(c.get(), q.c_str(), "held", 5));
  JobPtr held = claim(c.get(), q, 60000);
  REQUIRE(held);
  EMQ_REQUIRE_OK(c.get(), echomq_pause(c.get(), q.c_str(), "paused"));
  echomq_enqueue_options later = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  later.delay_ms = 3600 * 1000;
  enqueue(c.get(), q, "later", "x", &later);
  EMQ_REQUIRE_OK(c.get(), echomq_set_rate(c.get(), q.c_str(), "rated", 10, 1000, 0));
  enqueue(c.get(), q, "cooling", "x");
  EMQ_REQUIRE_OK(c.get(), echomq_throttle(c.get(), q.c_str(), "cooling", 3600 * 1000));
  EMQ_REQUIRE_OK(c.get(), echomq_set_cap(c.get(), q.c_str(), "capped", 100));
  enqueue(c.get(), q, "a", "two");

  const long long slot = Raw(port_of(urls[0])).integer({"CLUSTER", "KEYSLOT", pre + "seq"});
  const size_t owner = owner_of(urls, slot);
  const size_t target = (owner + 1) % urls.size();
  Raw from(port_of(urls[owner])), to(port_of(urls[target]));
  for (const char *k : {"seq", "ring", "gweight", "glimit", "gactive", "paused", "delayed", "lanes", "glive",
                        "gserved", "stats", "config", "wake", "jobs", "grate", "gbucket", "throttled", "gcap"}) {
    INFO("key " << k);
    REQUIRE(from.integer({"EXISTS", pre + k}) == 1);
  }
  const std::string seq_before = from.text({"GET", pre + "seq"});

  // Only lane a's pending list has moved so far.
  const std::string s = std::to_string(slot);
  to.text({"CLUSTER", "SETSLOT", s, "IMPORTING", from.text({"CLUSTER", "MYID"})});
  from.text({"CLUSTER", "SETSLOT", s, "MIGRATING", to.text({"CLUSTER", "MYID"})});
  struct Stable {
    Raw &a, &b;
    long long slot;
    ~Stable() {
      for (Raw *r : {&a, &b}) {
        redisReply *x = static_cast<redisReply *>(redisCommand(r->c, "CLUSTER SETSLOT %lld STABLE", slot));
        if (x) freeReplyObject(x);
      }
    }
  } stable{from, to, slot};
  REQUIRE(from.text({"MIGRATE", "127.0.0.1", std::to_string(port_of(urls[target])), pre + "g:a:pending", "0",
                     "5000"}) == "OK");
  const long long left = from.integer({"CLUSTER", "COUNTKEYSINSLOT", s});

  ClientPtr direct = connect_client(nullptr, urls[owner]);
  const int rc = echomq_enqueue(direct.get(), q.c_str(), "a", "three", 5, nullptr, nullptr);
  INFO("enqueue into a half-moved lane -> " << describe(direct.get(), rc));
  CHECK(rc == ECHOMQ_ETRYAGAIN);
  CHECK(from.text({"GET", pre + "seq"}) == seq_before);  // refused whole: no id was taken
  echomq_job *j = nullptr;
  const int rc2 = echomq_claim(direct.get(), q.c_str(), 60000, &j);
  INFO("claim from a half-moved queue -> " << describe(direct.get(), rc2));
  CHECK(rc2 == ECHOMQ_ETRYAGAIN);
  echomq_job_free(j);
  // Nothing wrote a key back on the old node (a lane's pending list there
  // would split the lane between two nodes).
  CHECK(from.integer({"CLUSTER", "COUNTKEYSINSLOT", s}) == left);
}

namespace {

long long slot_of_queue(const std::vector<std::string> &urls, const std::string &q) {
  return Raw(port_of(urls[0])).integer({"CLUSTER", "KEYSLOT", "emq:{" + q + "}:seq"});
}

/// The node serving a slot, by the slot map (not by where keys are).
size_t server_of(const std::vector<std::string> &urls, long long slot) {
  auto *r = static_cast<redisReply *>(redisCommand(Raw(port_of(urls[0])).c, "CLUSTER SLOTS"));
  REQUIRE(r != nullptr);
  int port = -1;
  for (size_t i = 0; i < r->elements; ++i) {
    const redisReply *e = r->element[i];
    if (slot >= e->element[0]->integer && slot <= e->element[1]->integer)
      port = static_cast<int>(e->element[2]->element[1]->integer);
  }
  freeReplyObject(r);
  for (size_t i = 0; i < urls.size(); ++i)
    if (port_of(urls[i]) == port) return i;
  FAIL("no node serves slot " << slot);
  return urls.size();
}

}  // namespace

TEST_CASE("a sharded queue puts one shard on each primary and is served from any entry node", "[cluster][shards]") {
  const std::vector<std::string> urls = cluster_urls();
  const std::string q = fresh_queue("sharded");
  ClientPtr c = connect_client(nullptr, urls[1]);
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 3));
  const std::vector<std::string> shards = shard_names(c.get(), q);
  REQUIRE(shards.size() == 3);
  std::set<size_t> owners;
  for (const std::string &s : shards) owners.insert(server_of(urls, slot_of_queue(urls, s)));
  CHECK(owners.size() == 3);  // shard i on primary i

  constexpr int kJobs = 600, kLanes = 30;
  for (int i = 0; i < kJobs; ++i) enqueue(c.get(), q, "t" + std::to_string(i % kLanes), "job");
  for (const std::string &s : shards) {
    INFO("shard " << s);
    const size_t node = server_of(urls, slot_of_queue(urls, s));
    CHECK(Raw(port_of(urls[node])).integer({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot_of_queue(urls, s))}) > 0);
  }
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 8;
  EngineDrain d;
  d.add_engine(urls[2], q, o, 3);
  d.finish(kJobs, 30000);
  for (const std::string &entry : urls) {
    ClientPtr e = connect_client(nullptr, entry);
    const echomq_queue_stats s = stats(e.get(), q);
    CHECK(s.acked_total == kJobs);
    CHECK(s.pending == 0);
    require_verified(e.get(), q);
  }
  // queues lists the sharded queue once, from every primary, without its shards.
  echomq_report *r = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_queues(c.get(), &r));
  std::vector<std::string> listed;
  for (size_t i = 0; i < echomq_report_count(r); ++i) listed.push_back(echomq_report_at(r, i));
  echomq_report_free(r);
  CHECK(std::count(listed.begin(), listed.end(), q) == 1);
  for (const std::string &s : shards) CHECK(std::count(listed.begin(), listed.end(), s) == 0);
}

TEST_CASE("a shard's slot moves to another primary while engines drain the sharded queue and a producer adds to it",
          "[cluster][shards]") {
  const std::vector<std::string> urls = cluster_urls();
  const std::string q = fresh_queue("sharded-moved");
  constexpr int kBefore = 1500, kDuring = 300, kLanes = 30;
  ClientPtr c = connect_client(nullptr, urls[0]);
  EMQ_REQUIRE_OK(c.get(), echomq_shards_create(c.get(), q.c_str(), 3));
  const std::vector<std::string> shards = shard_names(c.get(), q);
  for (int i = 0; i < kBefore; ++i) enqueue(c.get(), q, "t" + std::to_string(i % kLanes), "job");
  const long long slot = slot_of_queue(urls, shards[0]);
  const size_t owner = server_of(urls, slot);
  const size_t target = (owner + 1) % urls.size();

  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 8;
  EngineDrain d;
  for (size_t e = 0; e < 2; ++e) d.add_engine(urls[e], q, o, 2, 1);
  LateProducer producer(urls[2], q, kDuring, kLanes);
  sleep_ms(300);
  move_slot(urls, owner, target, slot);
  producer.check();
  d.finish(kBefore + kDuring, 60000);
  CHECK(server_of(urls, slot) == target);
  CHECK(Raw(port_of(urls[owner])).integer({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}) == 0);
  const echomq_queue_stats s = stats(c.get(), q);
  CHECK(s.acked_total == static_cast<uint64_t>(kBefore + kDuring));
  CHECK(s.enqueued_total == static_cast<uint64_t>(kBefore + kDuring));
  CHECK(s.pending == 0);
  CHECK(s.leased == 0);
  require_verified(c.get(), q);
}
