// Server refusals that a caller may retry get statuses of their own:
// BUSY -> ECHOMQ_EBUSY, LOADING -> ECHOMQ_ELOADING (OOM -> ECHOMQ_EOOM is in
// oom_test.cpp, TRYAGAIN -> ECHOMQ_ETRYAGAIN in cluster_test.cpp), and the
// call changed nothing. Each test runs a valkey-server of its own.
#include "test_env.hpp"

#include "raw_valkey.hpp"

#include <hiredis/hiredis.h>

#include <cstring>

using namespace emqtest;

TEST_CASE("strerror names the retryable statuses", "[retryable]") {
  for (int st : {ECHOMQ_EBUSY, ECHOMQ_ELOADING, ECHOMQ_ETRYAGAIN, ECHOMQ_EOOM}) {
    const std::string text = echomq_strerror(st);
    INFO(st << " -> " << text);
    CHECK(text.find("retryable") != std::string::npos);
  }
  // The numbers are part of the ABI.
  STATIC_REQUIRE(ECHOMQ_EBUSY == -23);
  STATIC_REQUIRE(ECHOMQ_ELOADING == -24);
  STATIC_REQUIRE(ECHOMQ_ETRYAGAIN == -25);
  STATIC_REQUIRE(ECHOMQ_EOOM == -26);
}

TEST_CASE("a server busy running a script is EBUSY, and the call works afterwards",
          "[retryable]") {
  PrivateServer server(free_port(), "--busy-reply-threshold 100");
  server.start();
  ClientPtr c = connect_client(nullptr, server.url());
  const std::string q = fresh_queue("busy");
  enqueue(c.get(), q, "a", "x");

  // Another client runs a 1.5 s script; the test does not wait for its reply yet.
  redisContext *busy = redisConnect("127.0.0.1", server.port());
  REQUIRE(busy != nullptr);
  REQUIRE(busy->err == 0);
  const char *loop =
      "local t = redis.call('TIME') local s = t[1] * 1000000 + t[2] "
      "repeat local n = redis.call('TIME') until n[1] * 1000000 + n[2] - s > 1500000 return 1";
  REQUIRE(redisAppendCommand(busy, "EVAL %s 0", loop) == REDIS_OK);
  int done = 0;
  while (!done) REQUIRE(redisBufferWrite(busy, &done) == REDIS_OK);
  sleep_ms(400);  // past the busy threshold

  const int rc = echomq_enqueue(c.get(), q.c_str(), "a", "y", 1, nullptr, nullptr);
  INFO("enqueue during a long script -> " << describe(c.get(), rc));
  CHECK(rc == ECHOMQ_EBUSY);
  echomq_queue_stats s{};
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  const int rs = echomq_stats(c.get(), q.c_str(), &s);
  INFO("stats during a long script -> " << describe(c.get(), rs));
  CHECK(rs == ECHOMQ_EBUSY);

  void *reply = nullptr;
  REQUIRE(redisGetReply(busy, &reply) == REDIS_OK);
  freeReplyObject(reply);
  redisFree(busy);

  EMQ_REQUIRE_OK(c.get(), echomq_stats(c.get(), q.c_str(), &s));
  CHECK(s.pending == 1);  // the refused enqueue wrote nothing
  require_verified(c.get(), q);
}

TEST_CASE("a server loading its dataset is ELOADING, and connects once it is loaded",
          "[retryable]") {
  // Loading is slowed down (a debug setting) and serves clients in between.
  PrivateServer server(free_port(),
                       "--key-load-delay 200 --loading-process-events-interval-bytes 1024");
  server.start();
  {
    RawValkey raw("127.0.0.1", server.port());
    raw.must({"EVAL", "for i = 1, 8000 do redis.call('SET', 'fill:' .. i, i) end", "0"});
    raw.must({"SAVE"});
  }
  server.stop();
  server.start();  // loads dump.rdb from its directory

  ClientPtr c(echomq_client_create(nullptr));
  int rc = echomq_client_connect(c.get(), server.url().c_str());
  INFO("connect while loading -> " << describe(c.get(), rc));
  CHECK(rc == ECHOMQ_ELOADING);
  const int64_t deadline = mono_ms() + 30000;
  while (rc == ECHOMQ_ELOADING && mono_ms() < deadline) {
    sleep_ms(100);
    rc = echomq_client_connect(c.get(), server.url().c_str());
  }
  EMQ_REQUIRE_OK(c.get(), rc);
  const std::string q = fresh_queue("loaded");
  enqueue(c.get(), q, "a", "x");
  require_verified(c.get(), q);
}
