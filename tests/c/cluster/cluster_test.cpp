// A queue is one hash slot: on a Valkey Cluster the client follows MOVED to
// the node that owns the queue's slot, whichever node it was pointed at,
// and every script stays single-slot. Runs against the three-master cluster
// the CTest fixture "valkey_cluster" starts (tests/valkey-cluster.sh).
#include <hiredis/hiredis.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

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
  size_t owner = urls.size();
  for (size_t i = 0; i < urls.size(); ++i)
    if (Raw(port_of(urls[i])).integer({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}) > 0)
      owner = i;
  REQUIRE(owner < urls.size());
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
