// compare.cpp — `echomq_bench compare`: EchoMQ's side of bench/compare,
// the same workloads the peer scripts run, printed as JSON on stdout:
//  (a) enqueue N jobs (default 50,000, over 100 lanes) then drain them with
//      1 and with 8 host threads on one worker engine, no-op handler;
//  (b) one producer with 10,000 jobs and 99 with 10 each, arriving
//      interleaved, drained by 1 and by 8 threads: the completion position of
//      each small producer's last job;
//  (e) sustained overload (overload.cpp): a heavy tenant kept deep, quiet
//      tenants at a fixed rate, handlers of a fixed time: the quiet waits;
//  (mem) M pending jobs of a given payload size, left for run.sh to measure;
//  (fixed) not a peer workload: N jobs drained by one client in batches of
//      exactly B (the acks of a batch settled with the claim of the next, as
//      the engine does), so every script call does the same work whatever
//      the machine's timing: the server CPU per job of the enqueue and of
//      the drain, the steadiest figure of the scripts' own cost.
// --phase picks one (run.sh reads the server's figures around each).
// It never flushes: run.sh gives every library fresh queue names on one server.
#include "common.hpp"
#include "overload.hpp"
#include "results.hpp"
#include "sections.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bench {
namespace {

constexpr int64_t kLease = 60000;
constexpr size_t kChunk = 1000;  // jobs per enqueue_batch, as the peers' bulk adds

struct CompareOptions {
  std::string url;
  uint64_t jobs = 50000;
  uint64_t lanes = 100;
  std::vector<int> workers{1, 8};
  uint64_t heavy = 10000, small = 99, small_jobs = 10;
  std::string prefix = "cmp";
  std::string phase = "all";
  uint64_t mem_jobs = 100000, payload = 100;
  uint64_t batch = 32;
  uint64_t slots = 0;  // engine slots; 0 = default_slots(threads)
  uint64_t depth = 16;  // phase d: jobs in flight per thread (slots = depth x threads)
  // phase fixed: "off" (default); "keep": the queue retains the last 1,000
  // outcomes for 60 s and every ack carries a 2-byte result; "events": it
  // writes events (10,000 long); "on": both (docs/operations.md "Outcomes").
  std::string outcomes = "off";
  // phase fixed: the per-lane wait figures' window in s (0 = off); phase
  // waits: paired rounds of the fixed drain, figures off and on.
  uint64_t waits = 0, rounds = 7;
  // phase fixed: schedules defined on the queue, none due in the run (each
  // ticks once a day): what a schedule that is not due costs a claim.
  uint64_t schedules = 0;
  // phase fixed: a queue-wide ceiling of leased jobs (0 = none), set high
  // enough never to be reached: what the gate itself costs a claim.
  uint64_t queue_limit = 0;
  OverloadOptions e;    // phase e (slots: --slots, else default_slots)
};

bool parse(int argc, char **argv, CompareOptions *o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!v) return false;
    ++i;
    if (a == "--url") o->url = v;
    else if (a == "--jobs") o->jobs = std::strtoull(v, nullptr, 10);
    else if (a == "--lanes") o->lanes = std::strtoull(v, nullptr, 10);
    else if (a == "--heavy") o->heavy = std::strtoull(v, nullptr, 10);
    else if (a == "--small") o->small = std::strtoull(v, nullptr, 10);
    else if (a == "--small-jobs") o->small_jobs = std::strtoull(v, nullptr, 10);
    else if (a == "--prefix") o->prefix = v;
    else if (a == "--phase") o->phase = v;
    else if (a == "--mem-jobs") o->mem_jobs = std::strtoull(v, nullptr, 10);
    else if (a == "--payload") o->payload = std::strtoull(v, nullptr, 10);
    else if (a == "--batch") o->batch = std::strtoull(v, nullptr, 10);
    else if (a == "--slots") o->slots = std::strtoull(v, nullptr, 10);
    else if (a == "--depth") o->depth = std::strtoull(v, nullptr, 10);
    else if (a == "--outcomes") o->outcomes = v;
    else if (a == "--waits") o->waits = std::strtoull(v, nullptr, 10);
    else if (a == "--rounds") o->rounds = std::strtoull(v, nullptr, 10);
    else if (a == "--schedules") o->schedules = std::strtoull(v, nullptr, 10);
    else if (a == "--queue-limit") o->queue_limit = std::strtoull(v, nullptr, 10);
    else if (a == "--target-wait") o->e.target_wait_ms = std::atoi(v);
    else if (a == "--backlog") o->e.backlog = std::strtoull(v, nullptr, 10);
    else if (a == "--quiet") o->e.quiet = std::strtoull(v, nullptr, 10);
    else if (a == "--quiet-rate") o->e.quiet_rate = std::atof(v);
    else if (a == "--handler-ms") o->e.handler_ms = std::atof(v);
    else if (a == "--warmup") o->e.warmup_s = std::atof(v);
    else if (a == "--window") o->e.window_s = std::atof(v);
    else if (a == "--max-wait") o->e.max_wait_s = std::atof(v);
    else if (a == "--workers") {
      o->workers.clear();
      for (const char *p = v; *p;) {
        o->workers.push_back(std::atoi(p));
        const char *comma = std::strchr(p, ',');
        if (!comma) break;
        p = comma + 1;
      }
    } else {
      return false;
    }
  }
  return !o->url.empty() && o->jobs > 0 && o->lanes > 0 && !o->workers.empty() && o->batch > 0 &&
         o->batch <= ECHOMQ_BATCH_MAX && o->waits <= ECHOMQ_WAIT_WINDOW_MAX_S && o->rounds > 0 && o->e.quiet > 0 && o->e.quiet_rate > 0 && o->e.window_s > 0;
}

/// Enqueues jobs in batches; groups[k] names job k's lane. Returns jobs/s.
double enqueue_all(echomq_client *c, const std::string &q, const std::vector<std::string> &groups,
                   const std::vector<std::string> &payloads) {
  Batch b(echomq_batch_create());
  auto t0 = Clock::now();
  for (size_t k = 0; k < groups.size() && b;) {
    echomq_batch_clear(b.get());
    for (size_t end = std::min(groups.size(), k + kChunk); k < end; ++k)
      echomq_batch_add(b.get(), groups[k].c_str(), payloads[k].data(), payloads[k].size());
    if (!ok(echomq_enqueue_batch(c, q.c_str(), b.get(), nullptr), c, "enqueue_batch")) return 0;
  }
  return double(groups.size()) / seconds_since(t0);
}

/// The engine's slots for a drain by `threads` host threads, unless --slots
/// says otherwise: 16 per thread (with no-op handlers, one running and the
/// rest claimed ahead), at least 16. A call's fixed cost (about 100 µs of
/// server time) is shared by the jobs it carries: with 8 threads, 32 slots
/// carried about 20 jobs a call, 64 about 40, 128 about 100 (server CPU per
/// job 9.3 µs at 64 slots, 7.4 at 128; bench/README.md). The skew positions
/// are the same at any depth (a batch serves its turns in ring order), and
/// phase d runs the peers at this depth too.
unsigned default_slots(int threads) { return static_cast<unsigned>(std::max(16, 16 * threads)); }

/// Drains n jobs with `threads` host threads on one worker engine (batched
/// claims fused with the settlement of finished jobs). on_done(job) runs
/// after each job; when `ordered`, under a lock, in completion order (the
/// skew workload counts positions). The no-op drains pass false: the lock
/// would serialize their threads, which the peers' workers never are.
/// Returns jobs done; *round_trips (may be NULL) gets the engine's calls to
/// the server.
template <typename F>
uint64_t drain(const std::string &url, const std::string &q, int threads, uint64_t n, F on_done,
               uint64_t *round_trips = nullptr, uint64_t slots = 0, bool ordered = true) {
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = slots ? static_cast<unsigned>(slots) : default_slots(threads);
  o.lease_ms = kLease;
  o.idle_wait_ms = 100;
  echomq_worker *w = nullptr;
  if (echomq_worker_new(&w, url.c_str(), q.c_str(), &o) != ECHOMQ_OK || echomq_worker_start(w) != ECHOMQ_OK) {
    errors().add("compare: worker engine did not start");
    echomq_worker_free(w);
    return 0;
  }
  std::mutex mu;
  std::atomic<uint64_t> done{0};
  parallel(threads, [&](int) {
    while (done.load() < n) {
      echomq_job *raw = nullptr;
      int st = echomq_worker_next(w, 50, &raw);
      if (st != ECHOMQ_OK) continue;
      Job j(raw);
      if (ordered) {
        std::lock_guard<std::mutex> lk(mu);
        on_done(j.get());
      } else {
        on_done(j.get());
      }
      if (echomq_worker_done(w, j.get()) == ECHOMQ_OK) done.fetch_add(1);
    }
  });
  if (echomq_worker_stop(w, ECHOMQ_STOP_DRAIN, 10000) != ECHOMQ_OK) errors().add("compare: drain stop timed out");
  echomq_worker_stats st{};
  st.version = ECHOMQ_WORKER_STATS_VERSION;
  if (round_trips && echomq_worker_stats_get(w, &st) == ECHOMQ_OK) *round_trips = st.round_trips;
  echomq_worker_free(w);
  return done.load();
}

std::string workload_a(const CompareOptions &o) {
  std::vector<std::string> groups, payloads(o.jobs, "{}");
  for (uint64_t k = 0; k < o.jobs; ++k) groups.push_back(lane_name(k % o.lanes));
  std::string out = "{\"jobs\": " + std::to_string(o.jobs) +
                    ", \"groups\": " + std::to_string(o.lanes) + ", \"runs\": [";
  for (size_t r = 0; r < o.workers.size(); ++r) {
    const int n = o.workers[r];
    const std::string q = o.prefix + ".a." + std::to_string(n);
    Client c(o.url);
    double enq = enqueue_all(c.get(), q, groups, payloads);
    // The server's CPU over the drain alone (run.sh reads it around enqueue
    // and drain together).
    Admin admin(o.url);
    double cpu0 = admin.cpu_seconds();
    uint64_t trips = 0;
    auto t0 = Clock::now();
    uint64_t total = drain(o.url, q, n, o.jobs, [](const echomq_job *) {}, &trips, o.slots, false);
    double secs = seconds_since(t0);
    double drain_cpu = admin.cpu_seconds() - cpu0;
    if (total != o.jobs)
      errors().add("compare a: drained " + std::to_string(total) + " of " +
                   std::to_string(o.jobs));
    out += std::string(r ? ", " : "") + "{\"workers\": " + std::to_string(n) +
           ", \"slots\": " + std::to_string(o.slots ? o.slots : default_slots(n)) +
           ", \"enqueue_jobs_per_s\": " + json_num(enq) +
           ", \"drain_jobs_per_s\": " + json_num(double(total) / secs) +
           ", \"drain_server_us_per_job\": " + json_num(total ? drain_cpu / double(total) * 1e6 : 0) +
           ", \"drain_jobs_per_round_trip\": " + json_num(trips ? double(total) / double(trips) : 0) + "}";
  }
  return out + "]}";
}

std::string workload_b(const CompareOptions &o) {
  std::vector<uint64_t> counts(o.small + 1, o.small_jobs);
  counts[0] = o.heavy;
  std::vector<int> order = interleave(counts);
  std::vector<std::string> groups, payloads;
  for (int p : order) {
    groups.push_back("p" + std::to_string(p));
    payloads.push_back(std::to_string(p));
  }
  std::string runs;
  for (size_t r = 0; r < o.workers.size(); ++r) {
    const int n = o.workers[r];
    const std::string q = o.prefix + ".b." + std::to_string(n);
    Client c(o.url);
    if (!c.get()) return "null";
    enqueue_all(c.get(), q, groups, payloads);
    std::vector<uint64_t> left = counts, last(counts.size(), 0);
    uint64_t pos = 0;
    drain(o.url, q, n, order.size(), [&](const echomq_job *j) {
      ++pos;
      int p = std::atoi(echomq_job_payload(j, nullptr));
      if (p >= 0 && size_t(p) < left.size() && left[p] > 0 && --left[p] == 0) last[p] = pos;
    }, nullptr, o.slots);
    std::vector<double> small(last.begin() + 1, last.end());
    std::string list;
    for (size_t i = 0; i < small.size(); ++i)
      list += (i ? ", " : "") + std::to_string(uint64_t(small[i]));
    runs += std::string(r ? ", " : "") + "{\"workers\": " + std::to_string(n) +
            ", \"slots\": " + std::to_string(o.slots ? o.slots : default_slots(n)) +
            ", \"small_last_positions\": [" + list + "], \"median\": " + json_num(median(small)) +
            ", \"max\": " + json_num(small.empty() ? 0 : *std::max_element(small.begin(), small.end())) + "}";
  }
  return "{\"jobs\": " + std::to_string(order.size()) + ", \"heavy\": " + std::to_string(o.heavy) +
         ", \"small\": " + std::to_string(o.small) +
         ", \"small_jobs\": " + std::to_string(o.small_jobs) + ", \"runs\": [" + runs + "]}";
}

/// Server CPU (INFO cpu delta) per job of one fixed run; -1 on failure.
struct FixedRun {
  double enqueue_us = -1, drain_us = -1;
  uint64_t calls = 0;
};

FixedRun fixed_run(const CompareOptions &o, const std::string &q, uint64_t waits) {
  FixedRun out;
  std::vector<std::string> groups, payloads(o.jobs, "{}");
  for (uint64_t k = 0; k < o.jobs; ++k) groups.push_back(lane_name(k % o.lanes));
  Client c(o.url);
  Admin admin(o.url);
  if (!c.get()) return out;
  if (waits && !ok(echomq_set_wait_figures(c.get(), q.c_str(), static_cast<uint32_t>(waits)), c.get(),
                   "fixed: wait figures"))
    return out;
  const bool outcomes = o.outcomes == "on" || o.outcomes == "keep";
  const bool events = o.outcomes == "on" || o.outcomes == "events";
  if (outcomes && !ok(echomq_set_retention(c.get(), q.c_str(), 60000, 1000), c.get(), "fixed: retention"))
    return out;
  if (events && !ok(echomq_set_events(c.get(), q.c_str(), 10000, 0), c.get(), "fixed: events")) return out;
  echomq_schedule_options idle = ECHOMQ_SCHEDULE_OPTIONS_INIT;
  idle.every_ms = 24LL * 3600 * 1000;
  idle.lane = "scheduled";
  for (uint64_t k = 0; k < o.schedules; ++k)
    if (!ok(echomq_schedule_upsert(c.get(), q.c_str(), ("s" + std::to_string(k)).c_str(), &idle, nullptr, nullptr),
            c.get(), "fixed: schedule"))
      return out;
  if (o.queue_limit &&
      !ok(echomq_set_queue_limit(c.get(), q.c_str(), static_cast<uint32_t>(o.queue_limit)), c.get(),
          "fixed: queue limit"))
    return out;
  double cpu0 = admin.cpu_seconds();
  enqueue_all(c.get(), q, groups, payloads);
  double cpu1 = admin.cpu_seconds();
  echomq::SettlePtr s(echomq_settle_create());
  if (!s) return out;
  uint64_t done = 0, calls = 0;
  for (;;) {
    echomq_job_list *raw = nullptr;
    const uint32_t n = static_cast<uint32_t>(o.batch);
    int st = echomq_settle_count(s.get()) ? echomq_settle_claim(c.get(), q.c_str(), s.get(), kLease, n, 0, &raw)
                                          : echomq_claim_batch(c.get(), q.c_str(), kLease, n, 0, &raw);
    ++calls;
    done += echomq_settle_count(s.get());
    echomq_settle_clear(s.get());
    JobList l(raw);
    if (st == ECHOMQ_EMPTY) break;
    if (!ok(st, c.get(), "fixed: settle_claim")) return out;
    for (size_t i = 0; i < echomq_job_list_count(l.get()); ++i) {
      const echomq_job *j = echomq_job_list_at(l.get(), i);
      if (outcomes) echomq_settle_ack_result(s.get(), echomq_job_id(j), echomq_job_token(j), "ok", 2);
      else echomq_settle_ack(s.get(), echomq_job_id(j), echomq_job_token(j));
    }
  }
  double cpu2 = admin.cpu_seconds();
  if (done != o.jobs) errors().add("compare fixed: drained " + std::to_string(done) + " of " + std::to_string(o.jobs));
  const double n = double(o.jobs);
  out.enqueue_us = (cpu1 - cpu0) / n * 1e6;
  out.drain_us = (cpu2 - cpu1) / n * 1e6;
  out.calls = calls;
  return out;
}

std::string workload_fixed(const CompareOptions &o) {
  FixedRun r = fixed_run(o, o.prefix + ".fixed", o.waits);
  if (r.drain_us < 0) return "null";
  return "{\"jobs\": " + std::to_string(o.jobs) + ", \"groups\": " + std::to_string(o.lanes) +
         ", \"batch\": " + std::to_string(o.batch) + ", \"calls\": " + std::to_string(r.calls) +
         ", \"waits\": " + std::to_string(o.waits) +
         ", \"enqueue_server_us_per_job\": " + json_num(r.enqueue_us) +
         ", \"drain_server_us_per_job\": " + json_num(r.drain_us) + "}";
}

/// What the wait figures cost: `rounds` pairs of fixed runs, figures off
/// and on (window --waits, 60 s if 0), the order alternating between
/// rounds; server CPU per job of each drain, the ratio on/off per round and
/// its median (so a load change on the machine hits both sides of a pair).
std::string workload_waits(const CompareOptions &o) {
  const uint64_t window = o.waits ? o.waits : 60;
  std::vector<double> off, on, ratio;
  for (uint64_t r = 0; r < o.rounds; ++r) {
    const std::string base = o.prefix + ".waits." + std::to_string(r);
    FixedRun a, b;
    if (r % 2 == 0) {
      a = fixed_run(o, base + ".off", 0);
      b = fixed_run(o, base + ".on", window);
    } else {
      b = fixed_run(o, base + ".on", window);
      a = fixed_run(o, base + ".off", 0);
    }
    if (a.drain_us <= 0 || b.drain_us < 0) return "null";
    off.push_back(a.drain_us);
    on.push_back(b.drain_us);
    ratio.push_back(b.drain_us / a.drain_us);
  }
  auto list = [](const std::vector<double> &v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_num(v[i]);
    return "[" + s + "]";
  };
  return "{\"jobs\": " + std::to_string(o.jobs) + ", \"groups\": " + std::to_string(o.lanes) +
         ", \"batch\": " + std::to_string(o.batch) + ", \"window_s\": " + std::to_string(window) +
         ", \"rounds\": " + std::to_string(o.rounds) + ", \"off_drain_server_us_per_job\": " + list(off) +
         ", \"on_drain_server_us_per_job\": " + list(on) + ", \"ratio_on_off\": " + list(ratio) +
         ", \"off_median\": " + json_num(median(off)) + ", \"on_median\": " + json_num(median(on)) +
         ", \"ratio_median\": " + json_num(median(ratio)) + "}";
}

/// Deep drain: workload (a) drained once by the most threads, with
/// `depth` jobs held per thread (the engine's slots; the peers run the
/// same depth as their workers' concurrency).
std::string workload_d(const CompareOptions &o) {
  const int n = *std::max_element(o.workers.begin(), o.workers.end());
  std::vector<std::string> groups, payloads(o.jobs, "{}");
  for (uint64_t k = 0; k < o.jobs; ++k) groups.push_back(lane_name(k % o.lanes));
  const std::string q = o.prefix + ".d." + std::to_string(n);
  Client c(o.url);
  enqueue_all(c.get(), q, groups, payloads);
  auto t0 = Clock::now();
  uint64_t total = drain(o.url, q, n, o.jobs, [](const echomq_job *) {}, nullptr, o.depth * static_cast<uint64_t>(n), false);
  double secs = seconds_since(t0);
  return "{\"jobs\": " + std::to_string(o.jobs) + ", \"workers\": " + std::to_string(n) +
         ", \"depth\": " + std::to_string(o.depth) + ", \"drain_jobs_per_s\": " + json_num(total / secs) + "}";
}

std::string workload_mem(const CompareOptions &o) {
  std::vector<std::string> groups, payloads(o.mem_jobs, std::string(o.payload, 'x'));
  for (uint64_t k = 0; k < o.mem_jobs; ++k) groups.push_back(lane_name(k % o.lanes));
  Client c(o.url);
  if (!c.get()) return "null";
  enqueue_all(c.get(), o.prefix + ".mem." + std::to_string(o.payload), groups, payloads);
  return "{\"jobs\": " + std::to_string(o.mem_jobs) + ", \"payload\": " + std::to_string(o.payload) + "}";
}

}  // namespace

int run_compare(int argc, char **argv) {
  CompareOptions o;
  if (!parse(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: echomq_bench compare --url URL [--jobs 50000] [--lanes 100]\n"
                 "         [--workers 1,8] [--heavy 10000] [--small 99] [--small-jobs 10]\n"
                 "         [--prefix cmp] [--phase a|b|d|e|mem|fixed|waits|all] [--mem-jobs 100000] [--payload 100]\n"
                 "         [--outcomes off|keep|events|on]  (phase fixed: retention with results, events, both)\n"
                 "         [--schedules N]  (phase fixed: N schedules on the queue, none due)\n"
                 "         [--queue-limit N]  (phase fixed: a queue-wide ceiling of N leased jobs)\n"
                 "         [--waits S] (phase fixed: wait figures with window S) [--rounds 7] (phase waits)\n"
                 "         [--batch 32] [--slots N] [--depth 16]\n"
                 "         phase e: [--target-wait MS] [--backlog 20000] [--quiet 20] [--quiet-rate 400]\n"
                 "         [--handler-ms 2] [--warmup 3] [--window 10] [--max-wait 30] (seconds)\n");
    return 2;
  }
  std::string out = "{\"library\": \"echomq\", \"version\": " + json_str(echomq_version_string());
  if (o.phase == "all" || o.phase == "a") out += ", \"a\": " + workload_a(o);
  if (o.phase == "all" || o.phase == "b") out += ", \"b\": " + workload_b(o);
  if (o.phase == "d") out += ", \"d\": " + workload_d(o);
  if (o.phase == "mem") out += ", \"mem\": " + workload_mem(o);
  if (o.phase == "e") {
    o.e.threads = *std::max_element(o.workers.begin(), o.workers.end());
    o.e.slots = static_cast<unsigned>(o.slots ? o.slots : default_slots(o.e.threads));
    out += ", \"e\": " + workload_overload(o.url, o.prefix + ".e", o.e);
  }
  if (o.phase == "fixed") out += ", \"fixed\": " + workload_fixed(o);
  if (o.phase == "waits") out += ", \"waits\": " + workload_waits(o);
  std::printf("%s}\n", out.c_str());
  if (errors().count()) {
    for (const auto &m : errors().messages()) std::fprintf(stderr, "compare: %s\n", m.c_str());
    return 1;
  }
  return 0;
}

}  // namespace bench
