// Durability waits (echomq_client_options.wait_*), against real servers: a
// primary with a replica behind a proxy that can cut the link, and a server
// with an append-only file. A write confirmed in time is ECHOMQ_OK; one that
// is not is ECHOMQ_UNCONFIRMED and still happened; reads and claims that
// find nothing never wait.
#include "replica_pair.hpp"

#include <cstddef>
#include <cstring>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

echomq_client_options waiting(int replicas, int aof, int timeout_ms) {
  echomq_client_options o = ECHOMQ_CLIENT_OPTIONS_INIT;
  o.wait_replicas = replicas;
  o.wait_aof = aof;
  o.wait_timeout_ms = timeout_ms;
  return o;
}

// Enqueue, claim and ack one job, each confirmed in time (ECHOMQ_OK).
void enqueue_claim_ack_confirmed(echomq_client *c, const std::string &q) {
  uint64_t id = 0;
  EMQ_REQUIRE_OK(c, echomq_enqueue(c, q.c_str(), "g", "a", 1, nullptr, &id));
  echomq_job *raw_job = nullptr;
  EMQ_REQUIRE_OK(c, echomq_claim(c, q.c_str(), kLease, &raw_job));
  JobPtr job(raw_job);
  EMQ_REQUIRE_OK(c, echomq_ack(c, q.c_str(), id, echomq_job_token(job.get())));
}

void require_unconfirmed(echomq_client *c, int rc, const char *what) {
  INFO(what << " -> " << describe(c, rc));
  REQUIRE(rc == ECHOMQ_UNCONFIRMED);
  CHECK(std::string(echomq_client_errmsg(c)).find("not confirmed") != std::string::npos);
}

}  // namespace

TEST_CASE("wait_replicas: OK while the replica keeps up and UNCONFIRMED once it is cut off",
          "[durability]") {
  ReplicaPair pair;
  RawValkey &praw = pair.praw(), &rraw = pair.rraw();
  const echomq_client_options o = waiting(1, 0, 300);
  auto c = connect_client(&o, pair.primary.url());
  const std::string q = fresh_queue("durable");
  enqueue_claim_ack_confirmed(c.get(), q);
  CHECK(rraw.integer({"HLEN", "emq:{" + q + "}:jobs"}) == 0);  // the ack reached the replica

  pair.link.partition();
  // A claim that finds nothing and a read never wait.
  echomq_job *raw_job = nullptr;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EMPTY, echomq_claim(c.get(), q.c_str(), kLease, &raw_job));
  echomq_queue_stats s{};
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  EMQ_REQUIRE_OK(c.get(), echomq_stats(c.get(), q.c_str(), &s));

  // Every write is done, and says it is not confirmed.
  uint64_t id2 = 0;
  require_unconfirmed(c.get(), echomq_enqueue(c.get(), q.c_str(), "g", "b", 1, nullptr, &id2), "enqueue");
  REQUIRE(id2 == 2);  // the second job of the queue
  CHECK(praw.integer({"HLEN", "emq:{" + q + "}:jobs"}) == 1);
  raw_job = nullptr;
  require_unconfirmed(c.get(), echomq_claim(c.get(), q.c_str(), kLease, &raw_job), "claim");
  JobPtr second(raw_job);
  REQUIRE(second);
  CHECK(echomq_job_id(second.get()) == id2);
  int64_t until = 0;
  require_unconfirmed(c.get(), echomq_extend(c.get(), q.c_str(), id2, echomq_job_token(second.get()), kLease, &until),
                      "extend");
  CHECK(until > 0);
  require_unconfirmed(c.get(), echomq_set_weight(c.get(), q.c_str(), "g", 2), "set_weight");
  require_unconfirmed(c.get(), echomq_ack(c.get(), q.c_str(), id2, echomq_job_token(second.get())), "ack");
  // The ack happened: a second one finds the job settled (stale).
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ESTALE, echomq_ack(c.get(), q.c_str(), id2, echomq_job_token(second.get())));
  CHECK(rraw.integer({"HLEN", "emq:{" + q + "}:jobs"}) == 0);  // the replica saw none of it
  require_verified(c.get(), q);
}

TEST_CASE("wait_aof: OK with appendonly yes (UNCONFIRMED where the server lacks WAITAOF) and UNCONFIRMED without", "[durability]") {
  PrivateServer aof(free_port(), "--appendonly yes --appendfsync everysec");
  PrivateServer plain(free_port());
  aof.start();
  plain.start();
  const echomq_client_options o = waiting(0, 1, 2000);
  const std::string q = fresh_queue("aof");

  auto c = connect_client(&o, aof.url());
  RawValkey araw("127.0.0.1", aof.port());
  ReplyPtr known = araw.must({"COMMAND", "INFO", "WAITAOF"});
  REQUIRE(known->elements == 1);
  if (known->element[0]->type != REDIS_REPLY_NIL) {
    enqueue_claim_ack_confirmed(c.get(), q);
  } else {
    // Redis 7.0 has no WAITAOF: the write is done all the same, and said
    // to be unconfirmed, with the reason.
    uint64_t id = 0;
    const int rc = echomq_enqueue(c.get(), q.c_str(), "g", "a", 1, nullptr, &id);
    INFO(describe(c.get(), rc));
    REQUIRE(rc == ECHOMQ_UNCONFIRMED);
    CHECK(std::string(echomq_client_errmsg(c.get())).find("WAITAOF needs") != std::string::npos);
    CHECK(id == 1);
  }

  auto p = connect_client(&o, plain.url());
  uint64_t id = 0;
  const int rc = echomq_enqueue(p.get(), q.c_str(), "g", "a", 1, nullptr, &id);
  INFO(describe(p.get(), rc));
  REQUIRE(rc == ECHOMQ_UNCONFIRMED);
  CHECK(std::string(echomq_client_errmsg(p.get())).find("refused the wait") != std::string::npos);
  CHECK(id == 1);  // enqueued all the same
  require_verified(p.get(), q);
}

TEST_CASE("durability options are validated and version-1 callers keep working", "[durability]") {
  echomq_client *c = nullptr;
  for (const auto &bad : {waiting(-1, 0, 100), waiting(ECHOMQ_WAIT_REPLICAS_MAX + 1, 0, 100),
                          waiting(0, 2, 100), waiting(1, 0, 0),
                          waiting(1, 0, ECHOMQ_WAIT_TIMEOUT_MAX_MS + 1)}) {
    CHECK(echomq_client_new(&c, &bad) == ECHOMQ_EINVAL);
    CHECK(c == nullptr);
  }
  // A version-1 struct is shorter: init and new touch only its fields.
  unsigned char buf[sizeof(echomq_client_options)];
  std::memset(buf, 0xAB, sizeof buf);
  auto *o1 = reinterpret_cast<echomq_client_options *>(buf);
  REQUIRE(echomq_client_options_init(o1, ECHOMQ_CLIENT_OPTIONS_VERSION_1) == ECHOMQ_OK);
  CHECK(o1->version == ECHOMQ_CLIENT_OPTIONS_VERSION_1);
  CHECK(o1->command_timeout_ms == 5000);
  for (size_t i = offsetof(echomq_client_options, wait_replicas); i < sizeof buf; ++i) CHECK(buf[i] == 0xAB);
  REQUIRE(echomq_client_new(&c, o1) == ECHOMQ_OK);  // the garbage after it is never read
  echomq_client_free(c);
  echomq_worker_options w{};
  REQUIRE(echomq_worker_options_init(&w, ECHOMQ_WORKER_OPTIONS_VERSION) == ECHOMQ_OK);
  CHECK(w.wait_timeout_ms == 1000);
  w.wait_aof = 3;
  echomq_worker *wk = nullptr;
  CHECK(echomq_worker_new(&wk, "valkey://127.0.0.1", "q", &w) == ECHOMQ_EINVAL);
  CHECK(std::string(echomq_strerror(ECHOMQ_UNCONFIRMED)).find("not confirmed") != std::string::npos);
}

TEST_CASE("the worker engine treats an unconfirmed round trip as done and counts it", "[durability]") {
  ReplicaPair pair;
  pair.link.partition();  // the replica never confirms anything
  const PrivateServer &primary = pair.primary;

  auto c = connect_client(nullptr, primary.url());
  const std::string q = fresh_queue("engine-unconfirmed");
  for (int i = 0; i < 5; ++i) enqueue(c.get(), q, "g", "p" + std::to_string(i));
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.wait_replicas = 1;
  o.wait_timeout_ms = 50;
  o.slots = 2;
  echomq_worker *raw_w = nullptr;
  REQUIRE(echomq_worker_new(&raw_w, primary.url().c_str(), q.c_str(), &o) == ECHOMQ_OK);
  std::unique_ptr<echomq_worker, void (*)(echomq_worker *)> w(raw_w, echomq_worker_free);
  REQUIRE(echomq_worker_start(w.get()) == ECHOMQ_OK);
  for (int done = 0; done < 5;) {
    echomq_job *j = nullptr;
    const int rc = echomq_worker_next(w.get(), 5000, &j);
    REQUIRE(rc == ECHOMQ_OK);
    JobPtr job(j);
    REQUIRE(echomq_worker_done(w.get(), job.get()) == ECHOMQ_OK);
    ++done;
  }
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  echomq_worker_stats s{};
  s.version = ECHOMQ_WORKER_STATS_VERSION;
  REQUIRE(echomq_worker_stats_get(w.get(), &s) == ECHOMQ_OK);
  CHECK(s.done == 5);
  CHECK(s.errors == 0);
  CHECK(s.unconfirmed > 0);
  char msg[256];
  CHECK(echomq_worker_last_error(w.get(), msg, sizeof msg) == ECHOMQ_UNCONFIRMED);
  echomq_queue_stats st = stats(c.get(), q);
  CHECK(st.acked_total == 5);
  CHECK(st.pending == 0);
  CHECK(st.leased == 0);
  require_verified(c.get(), q);
}
