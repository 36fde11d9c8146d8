// durability.cpp — echomq_bench_durability: what the client's durability
// wait costs per writing call, as a ratio against no wait, in one run.
//
//   echomq_bench_durability [--quick] [--jobs N]
//
// Starts a primary and a replica of it on loopback, both with appendonly yes
// and appendfsync always (WAITAOF then waits for no timer, and WAITAOF with
// replicas counts only replicas that fsynced their own AOF), and times one client
// doing enqueue + claim + ack per job (three writing calls) with
//   off      no wait (the same server, so the AOF's own cost is in the baseline)
//   wait 1   wait_replicas = 1 (WAIT 1)
//   aof      wait_aof = 1 (WAITAOF 1 0)
//   both     wait_replicas = 1 and wait_aof = 1 (WAITAOF 1 1)
// The variants take turns in every round; each figure is the median of the
// rounds, each ratio the median of the per-round ratios to "off".
#include "common.hpp"
#include "server.hpp"

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace bench;

namespace {

struct Variant {
  const char *name;
  int replicas;
  int aof;
};

// µs per writing call of `jobs` enqueue + claim + ack cycles; -1 on error.
double cycle_us(const std::string &url, const Variant &v, const std::string &queue, int jobs) {
  echomq_client_options o = ECHOMQ_CLIENT_OPTIONS_INIT;
  o.wait_replicas = v.replicas;
  o.wait_aof = v.aof;
  o.wait_timeout_ms = 1000;
  echomq_client *c = nullptr;
  if (echomq_client_new(&c, &o) != ECHOMQ_OK) return -1;
  double out = -1;
  if (echomq_client_connect(c, url.c_str()) == ECHOMQ_OK) {
    int unconfirmed = 0, errors = 0;
    auto note = [&](int rc) {
      if (rc == ECHOMQ_UNCONFIRMED) ++unconfirmed;
      else if (rc != ECHOMQ_OK) ++errors;
    };
    const auto t0 = Clock::now();
    for (int i = 0; i < jobs; ++i) {
      uint64_t id = 0;
      note(echomq_enqueue(c, queue.c_str(), "lane", "payload", 7, nullptr, &id));
      echomq_job *j = nullptr;
      note(echomq_claim(c, queue.c_str(), 30000, &j));
      if (j) note(echomq_ack(c, queue.c_str(), echomq_job_id(j), echomq_job_token(j)));
      echomq_job_free(j);
    }
    const double s = seconds_since(t0);
    if (errors == 0) out = s * 1e6 / (3.0 * jobs);
    if (unconfirmed > 0 || errors > 0)
      std::fprintf(stderr, "  %s: %d unconfirmed, %d errors (%s)\n", v.name, unconfirmed, errors,
                   echomq_client_errmsg(c));
  }
  echomq_client_free(c);
  return out;
}

bool replicate(const std::string &replica_url, const std::string &primary_url) {
  Endpoint p;
  if (!parse_url(primary_url, &p)) return false;
  redisContext *r = open_context(replica_url);
  if (!r) return false;
  const std::string port = std::to_string(p.port);
  const char *argv[] = {"REPLICAOF", p.host.c_str(), port.c_str()};
  freeReplyObject(redisCommandArgv(r, 3, argv, nullptr));
  bool up = false;
  for (int i = 0; i < 400 && !up; ++i) {  // the primary delays a full sync by ~5 s
    auto *rep = static_cast<redisReply *>(redisCommand(r, "INFO replication"));
    up = rep && rep->type == REDIS_REPLY_STRING && std::strstr(rep->str, "master_link_status:up");
    if (rep) freeReplyObject(rep);
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  redisFree(r);
  return up;
}

}  // namespace

int main(int argc, char **argv) {
  int jobs = 2000, rounds = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      jobs = 200;
      rounds = 3;
    } else if (std::strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
      jobs = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: echomq_bench_durability [--quick] [--jobs N]\n");
      return 2;
    }
  }
  OwnServer primary, replica;
  primary.extra_args = {"--appendonly", "yes", "--appendfsync", "always"};
  replica.extra_args = primary.extra_args;
  if (!primary.start() || !replica.start()) return 1;
  if (!replicate(replica.url(), primary.url())) {
    std::fprintf(stderr, "echomq_bench_durability: the replica did not sync\n");
    return 1;
  }
  const std::vector<Variant> vs = {{"off", 0, 0}, {"wait 1 replica", 1, 0}, {"waitaof local", 0, 1},
                                   {"both", 1, 1}};
  std::vector<std::vector<double>> us(vs.size());
  std::vector<std::vector<double>> ratio(vs.size());
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> got(vs.size());
    for (size_t k = 0; k < vs.size(); ++k) {
      const size_t v = (k + r) % vs.size();  // rotate who runs first
      got[v] = cycle_us(primary.url(), vs[v], "durability-" + std::to_string(r) + "-" + std::to_string(v), jobs);
      if (got[v] < 0) {
        std::fprintf(stderr, "echomq_bench_durability: %s failed\n", vs[v].name);
        return 1;
      }
    }
    for (size_t v = 0; v < vs.size(); ++v) {
      us[v].push_back(got[v]);
      ratio[v].push_back(got[v] / got[0]);
    }
  }
  std::printf("durability wait, 1 client, enqueue + claim + ack per job (%d jobs, median of %d rounds)\n",
              jobs, rounds);
  std::printf("valkey %s, primary and one replica on loopback, both appendonly yes, appendfsync always\n",
              primary.version().c_str());
  std::printf("%-16s %12s %12s\n", "variant", "us/call", "x off");
  for (size_t v = 0; v < vs.size(); ++v)
    std::printf("%-16s %12.1f %12.2f\n", vs[v].name, median(us[v]), median(ratio[v]));
  return 0;
}
