// shards.cpp — echomq_bench_shards: one hot queue over a Valkey Cluster,
// plain against sharded, with the server CPU each primary spends per job.
//
//   echomq_bench_shards --cluster URLS_FILE [--jobs N] [--rounds R]
//
// URLS_FILE holds the primaries' URLs, one per line (bench/shards.sh starts
// a three-master cluster and writes it). Per round, each variant in turn:
//   plain     a plain queue (one slot, so one primary)
//   1 shard   a sharded queue of one shard (the router's own cost)
//   3 shards  a sharded queue of three shards, one per primary
// enqueues N jobs over 100 lanes in batches of 1,000 and drains them with
// one worker engine (8 host threads, 64 slots). Figures: the INFO cpu delta
// of each primary over enqueue + drain, per job (µs), their total, the
// drain rate, and the engine's round trips per job. Medians of the rounds;
// ratios are to "plain" in the same round. On a machine with fewer cores
// than primaries, the split of CPU between primaries is the figure that
// matters, not the rates.
#include "common.hpp"
#include "server.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using namespace bench;

namespace {

struct Variant {
  const char *name;
  int shards;  // 0 = a plain queue
};

struct Outcome {
  std::vector<double> cpu_us;  // per primary
  double total_us = 0, drain_rate = 0, trips_per_job = 0;
};

bool run_one(const std::vector<std::string> &urls, const Variant &v, const std::string &queue, int jobs,
             Outcome &out) {
  echomq_client *c = nullptr;
  if (echomq_client_new(&c, nullptr) != ECHOMQ_OK) return false;
  bool ok = echomq_client_connect(c, urls[0].c_str()) == ECHOMQ_OK;
  if (ok && v.shards > 0) ok = echomq_shards_create(c, queue.c_str(), static_cast<uint32_t>(v.shards)) == ECHOMQ_OK;
  std::vector<double> before;
  for (const std::string &u : urls) before.push_back(Admin(u).cpu_seconds());
  for (int done = 0; ok && done < jobs; done += 1000) {
    echomq_batch *b = nullptr;
    ok = echomq_batch_new(&b) == ECHOMQ_OK;
    for (int i = done; ok && i < done + 1000 && i < jobs; ++i) {
      const std::string lane = "lane-" + std::to_string(i % 100);
      ok = echomq_batch_add(b, lane.c_str(), "payload-of-a-job", 16) == ECHOMQ_OK;
    }
    ok = ok && echomq_enqueue_batch(c, queue.c_str(), b, nullptr) == ECHOMQ_OK;
    echomq_batch_free(b);
  }
  if (!ok) std::fprintf(stderr, "  %s: %s\n", v.name, echomq_client_errmsg(c));
  echomq_client_free(c);
  if (!ok) return false;

  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = 64;
  echomq_worker *w = nullptr;
  if (echomq_worker_new(&w, urls[0].c_str(), queue.c_str(), &o) != ECHOMQ_OK || echomq_worker_start(w) != ECHOMQ_OK) {
    echomq_worker_free(w);
    return false;
  }
  std::atomic<int> left{jobs};
  const auto t0 = Clock::now();
  std::vector<std::thread> hosts;
  for (int t = 0; t < 8; ++t)
    hosts.emplace_back([&] {
      while (left > 0) {
        echomq_job *j = nullptr;
        if (echomq_worker_next(w, 100, &j) != ECHOMQ_OK) continue;
        echomq_worker_done(w, j);
        echomq_job_free(j);
        --left;
      }
    });
  for (auto &t : hosts) t.join();
  const double secs = seconds_since(t0);
  echomq_worker_stats st;
  std::memset(&st, 0, sizeof st);
  st.version = ECHOMQ_WORKER_STATS_VERSION;
  echomq_worker_stats_get(w, &st);
  echomq_worker_stop(w, ECHOMQ_STOP_DRAIN, 10000);
  echomq_worker_free(w);
  out.cpu_us.clear();
  out.total_us = 0;
  for (size_t i = 0; i < urls.size(); ++i) {
    const double us = (Admin(urls[i]).cpu_seconds() - before[i]) * 1e6 / jobs;
    out.cpu_us.push_back(us);
    out.total_us += us;
  }
  out.drain_rate = jobs / secs;
  out.trips_per_job = static_cast<double>(st.round_trips) / jobs;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  std::string file;
  int jobs = 30000, rounds = 3;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cluster") == 0 && i + 1 < argc) file = argv[++i];
    else if (std::strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) jobs = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: echomq_bench_shards --cluster URLS_FILE [--jobs N] [--rounds R]\n");
      return 2;
    }
  }
  std::vector<std::string> urls;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) urls.push_back(line);
  if (urls.empty() || jobs < 1000 || rounds < 1) {
    std::fprintf(stderr, "echomq_bench_shards: no primaries in '%s', or too few jobs or rounds\n", file.c_str());
    return 2;
  }
  const std::vector<Variant> vs = {{"plain", 0}, {"1 shard", 1}, {"3 shards", 3}};
  std::vector<std::vector<Outcome>> got(vs.size());
  std::vector<std::vector<double>> ratio(vs.size());
  const std::string run = std::to_string(static_cast<long long>(time(nullptr)));
  for (int r = 0; r < rounds; ++r) {
    std::vector<Outcome> one(vs.size());
    for (size_t k = 0; k < vs.size(); ++k) {
      const size_t v = (k + static_cast<size_t>(r)) % vs.size();  // rotate who runs first
      const std::string q = "bench-shards-" + run + "-" + std::to_string(r) + "-" + std::to_string(v);
      if (!run_one(urls, vs[v], q, jobs, one[v])) {
        std::fprintf(stderr, "echomq_bench_shards: %s failed\n", vs[v].name);
        return 1;
      }
    }
    for (size_t v = 0; v < vs.size(); ++v) {
      got[v].push_back(one[v]);
      ratio[v].push_back(one[v].total_us / one[0].total_us);
    }
  }
  std::printf("one queue over a %zu-primary cluster: %d jobs over 100 lanes, batches of 1,000, one engine "
              "(8 threads, 64 slots); median of %d rounds\n",
              urls.size(), jobs, rounds);
  std::printf("%-10s", "variant");
  for (size_t i = 0; i < urls.size(); ++i) std::printf("  primary%zu us/job", i + 1);
  std::printf("  total us/job  x plain  drain jobs/s  trips/job\n");
  for (size_t v = 0; v < vs.size(); ++v) {
    std::printf("%-10s", vs[v].name);
    for (size_t i = 0; i < urls.size(); ++i) {
      std::vector<double> x;
      for (const Outcome &o : got[v]) x.push_back(o.cpu_us[i]);
      std::printf("  %16.1f", median(x));
    }
    std::vector<double> tot, rate, trips;
    for (const Outcome &o : got[v]) {
      tot.push_back(o.total_us);
      rate.push_back(o.drain_rate);
      trips.push_back(o.trips_per_job);
    }
    std::printf("  %12.1f  %7.2f  %12.0f  %9.3f\n", median(tot), median(ratio[v]), median(rate), median(trips));
  }
  return 0;
}
