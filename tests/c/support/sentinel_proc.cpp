#include "sentinel_proc.hpp"

#include "raw_valkey.hpp"
#include "test_env.hpp"

#include <signal.h>
#include <stdlib.h>

#include <cstdlib>
#include <fstream>

namespace emqtest {

void start_primary_and_replicas(PrivateServer &primary, PrivateServer &r1, PrivateServer &r2) {
  primary.start();
  r1.start();
  r2.start();
  RawValkey praw("127.0.0.1", primary.port());
  for (PrivateServer *r : {&r1, &r2}) {
    RawValkey raw("127.0.0.1", r->port());
    raw.must({"REPLICAOF", "127.0.0.1", std::to_string(primary.port())});
  }
  praw.must({"SET", "sentinel-test-mark", "1"});
  REQUIRE(praw.integer({"WAIT", "2", "20000"}) == 2);
}

SentinelProc::SentinelProc(const std::string &name, int primary_port, const std::string &extra,
                           int down_after_ms)
    : name_(name), port_(free_port()) {
  char tmpl[] = "/tmp/emq-sentinel-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  dir_ = tmpl;
  {
    // Sentinel rewrites its configuration file: it lives in the test's directory.
    std::ofstream conf(dir_ + "/sentinel.conf");
    conf << "port " << port_ << "\nbind 127.0.0.1\ndaemonize yes\n"
         << "pidfile " << dir_ << "/sentinel.pid\nlogfile " << dir_ << "/sentinel.log\n"
         << "dir " << dir_ << "\n"
         << "sentinel monitor " << name_ << " 127.0.0.1 " << primary_port << " 1\n"
         << "sentinel down-after-milliseconds " << name_ << " " << down_after_ms << "\n"
         << "sentinel failover-timeout " << name_ << " 5000\n"
         << "sentinel parallel-syncs " << name_ << " 4\n"
         << extra;
  }
  const char *bin = std::getenv("VALKEY_SENTINEL");
  const std::string cmd = std::string(bin ? bin : "valkey-sentinel") + " '" + dir_ + "/sentinel.conf'";
  INFO("starting " << cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
  for (int i = 0; i < 200 && pid_ <= 0; ++i) {  // up to 10 s
    std::ifstream in(dir_ + "/sentinel.pid");
    in >> pid_;
    if (pid_ <= 0) sleep_ms(50);
  }
  INFO("Sentinel log: " << dir_ << "/sentinel.log");
  REQUIRE(pid_ > 0);
  for (int i = 0; i < 200; ++i) {
    redisContext *ctx = redisConnect("127.0.0.1", port_);
    const bool up = ctx != nullptr && ctx->err == 0;
    redisFree(ctx);
    if (up) return;
    sleep_ms(50);
  }
  FAIL("valkey-sentinel did not come up on port " << port_);
}

SentinelProc::~SentinelProc() {
  if (pid_ > 0) kill(static_cast<pid_t>(pid_), SIGKILL);
  const std::string rm = "rm -rf '" + dir_ + "'";
  if (std::system(rm.c_str()) != 0) {
    // A leftover temp dir is harmless.
  }
}

int SentinelProc::primary_port() {
  RawValkey raw("127.0.0.1", port_);
  ReplyPtr r = raw.must({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", name_});
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 2) return 0;
  return std::atoi(r->element[1]->str);
}

void SentinelProc::set(const std::string &option, const std::string &value) {
  RawValkey("127.0.0.1", port_).must({"SENTINEL", "SET", name_, option, value});
}

void SentinelProc::wait_for_replicas(int replicas, int64_t ms) {
  RawValkey raw("127.0.0.1", port_);
  const int64_t until = mono_ms() + ms;
  int healthy = 0;
  while (mono_ms() < until) {
    ReplyPtr r = raw.must({"SENTINEL", "REPLICAS", name_});
    healthy = 0;
    for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; ++i) {
      const redisReply *fields = r->element[i];
      for (size_t f = 0; f + 1 < fields->elements; f += 2)
        if (std::string(fields->element[f]->str) == "flags" &&
            std::string(fields->element[f + 1]->str) == "slave")
          ++healthy;
    }
    if (healthy >= replicas) return;
    sleep_ms(100);
  }
  FAIL("Sentinel knows " << healthy << " healthy replicas of " << name_ << ", not " << replicas);
}

}  // namespace emqtest
