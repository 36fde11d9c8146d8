// tls.cpp — echomq_bench_tls: what TLS costs the worker engine, as a ratio
// against plain TCP, in one run.
//
//   echomq_bench_tls [--quick] [--jobs N] [--runs N] [--threads 8] [--slots 128]
//
// Starts one valkey-server listening on a plain port and a TLS port (the
// certificates made by tests/valkey-tls.sh with the openssl CLI), so both
// transports meet the same server. In every round each transport drains a
// backlog of N jobs over 100 lanes through one worker engine (`slots`
// slots) with `threads` host threads acking every job; the order of the two
// alternates from round to round. The backlog is loaded before the clock
// starts and the engine connects before it starts too. Figures: jobs/s
// (median of the rounds), server CPU per job (INFO cpu delta) and the TLS /
// plain ratio as the median of the per-round ratios.
#include "common.hpp"
#include "server.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace bench;

namespace {

struct Options {
  uint64_t jobs = 40000;
  int runs = 7;
  int threads = 8;
  unsigned slots = 128;
};

struct Sample {
  double jobs_per_s = 0;
  double cpu_us_per_job = 0;
};

// One timed drain of `jobs` jobs through an engine on url; zeros on error.
Sample drain(const std::string &url, const std::string &plain_url, const std::string &queue,
             const Options &o) {
  Sample s;
  {
    Client loader(plain_url);
    if (!loader.get() || !load(loader.get(), queue, 100, o.jobs, 16)) return s;
  }
  echomq_worker_options wo = ECHOMQ_WORKER_OPTIONS_INIT;
  wo.slots = o.slots;
  wo.lease_ms = 60000;
  wo.idle_wait_ms = 100;
  echomq_worker *w = nullptr;
  if (echomq_worker_new(&w, url.c_str(), queue.c_str(), &wo) != ECHOMQ_OK ||
      echomq_worker_start(w) != ECHOMQ_OK) {
    char why[512] = "bad options";
    if (w) echomq_worker_last_error(w, why, sizeof why);
    errors().add("tls bench: the engine did not start on " + url + ": " + why);
    echomq_worker_free(w);
    return s;
  }
  Admin admin(plain_url);
  const double cpu0 = admin.cpu_seconds();
  std::atomic<uint64_t> done{0};
  const double secs = parallel(o.threads, [&](int) {
    while (done.load() < o.jobs) {
      echomq_job *raw = nullptr;
      if (echomq_worker_next(w, 50, &raw) != ECHOMQ_OK) continue;
      Job j(raw);
      if (echomq_worker_done(w, j.get()) == ECHOMQ_OK) done.fetch_add(1);
    }
  });
  const double cpu1 = admin.cpu_seconds();
  if (echomq_worker_stop(w, ECHOMQ_STOP_DRAIN, 10000) != ECHOMQ_OK) errors().add("tls bench: the drain did not stop");
  echomq_worker_free(w);
  if (done.load() != o.jobs) errors().add("tls bench: a drain came short");
  s.jobs_per_s = secs > 0 ? double(o.jobs) / secs : 0;
  s.cpu_us_per_job = cpu0 >= 0 && cpu1 >= 0 ? (cpu1 - cpu0) * 1e6 / double(o.jobs) : -1;
  return s;
}

void usage() {
  std::fprintf(stderr, "usage: echomq_bench_tls [--quick] [--jobs N] [--runs N] [--threads N] [--slots N]\n");
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--quick") {
      o.jobs = 5000;
      o.runs = 3;
    } else if (a == "--jobs" && v) {
      o.jobs = std::strtoull(v, nullptr, 10), ++i;
    } else if (a == "--runs" && v) {
      o.runs = std::atoi(v), ++i;
    } else if (a == "--threads" && v) {
      o.threads = std::atoi(v), ++i;
    } else if (a == "--slots" && v) {
      o.slots = static_cast<unsigned>(std::atoi(v)), ++i;
    } else {
      usage();
      return 2;
    }
  }
  if (o.jobs == 0 || o.runs < 1 || o.threads < 1 || o.slots < 1) {
    usage();
    return 2;
  }
  char tmpl[] = "/tmp/echomq-bench-tls.XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("echomq_bench_tls: mkdtemp");
    return 1;
  }
  const std::string certs = tmpl;
  const std::string make = "bash '" EMQ_TLS_SCRIPT "' certs '" + certs + "'";
  if (std::system(make.c_str()) != 0) {
    std::fprintf(stderr, "echomq_bench_tls: cannot make the test certificates (is openssl installed?)\n");
    return 1;
  }
  const int tls_port = free_port();
  OwnServer server;
  server.extra_args = {"--tls-port", std::to_string(tls_port), "--tls-cert-file", certs + "/server.pem",
                       "--tls-key-file", certs + "/server.key", "--tls-ca-cert-file", certs + "/ca.pem",
                       "--tls-auth-clients", "no"};
  if (!server.start()) return 1;
  const std::string plain = server.url();
  const std::string tls = "valkeys://127.0.0.1:" + std::to_string(tls_port) + "?ca=" + certs + "/ca.pem";
  std::printf("echomq_bench_tls: valkey %s, %llu jobs per drain, %d host threads, %u slots, %d rounds\n",
              server.version().c_str(), static_cast<unsigned long long>(o.jobs), o.threads, o.slots, o.runs);

  std::vector<double> plain_rate, tls_rate, plain_cpu, tls_cpu, ratios;
  for (int r = 0; r < o.runs; ++r) {
    Sample p, t;
    const std::string q = "bench.tls." + std::to_string(r);
    if (r % 2 == 0) {
      p = drain(plain, plain, q + ".p", o);
      t = drain(tls, plain, q + ".t", o);
    } else {
      t = drain(tls, plain, q + ".t", o);
      p = drain(plain, plain, q + ".p", o);
    }
    Admin(plain).flushall();
    if (p.jobs_per_s <= 0 || t.jobs_per_s <= 0) break;
    plain_rate.push_back(p.jobs_per_s);
    tls_rate.push_back(t.jobs_per_s);
    plain_cpu.push_back(p.cpu_us_per_job);
    tls_cpu.push_back(t.cpu_us_per_job);
    ratios.push_back(t.jobs_per_s / p.jobs_per_s);
    std::fprintf(stderr, "  round %d: plain %.0f jobs/s, tls %.0f jobs/s, ratio %.3f\n", r + 1, p.jobs_per_s,
                 t.jobs_per_s, ratios.back());
  }
  server.stop();
  const std::string rm = "rm -rf '" + certs + "'";
  if (std::system(rm.c_str()) != 0) {
    // A leftover temporary directory is harmless.
  }
  if (errors().count() > 0 || ratios.empty()) {
    for (const auto &m : errors().messages()) std::fprintf(stderr, "error: %s\n", m.c_str());
    return 1;
  }
  std::printf("%-10s %14s %22s\n", "transport", "jobs/s", "server CPU µs/job");
  std::printf("%-10s %14.0f %22.2f\n", "plain", median(plain_rate), median(plain_cpu));
  std::printf("%-10s %14.0f %22.2f\n", "tls", median(tls_rate), median(tls_cpu));
  std::printf("tls / plain (median of %zu paired rounds): %.3f\n", ratios.size(), median(ratios));
  return 0;
}
