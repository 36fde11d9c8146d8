// run.cpp — producers and workers of one demo mode, over the C API only.
#include "demo.hpp"

#include <echomq/echomq.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

namespace demo {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kLeaseMs = 30000;
constexpr int64_t kWaitMs = 20;       // blocking claim timeout while idle
constexpr int64_t kGiveUpUs = 60000000;  // a mode that has not drained by then failed
constexpr uint32_t kWclaimMax = 16;
constexpr int kHeavyBatch = 500;

/// Payload: the producer index and the submit time, so a worker knows both.
struct Tag {
  int32_t producer;
  int64_t submit_us;
};

/// State shared by the threads of one mode.
struct Shared {
  const Config *cfg = nullptr;
  const std::vector<Producer> *producers = nullptr;
  Mode mode = Mode::fifo;
  std::string queue;
  Clock::time_point t0;
  int total = 0;
  std::atomic<int> acked{0};
  std::atomic<bool> abort{false};
  std::atomic<int64_t> flood_done_us{-1};  // when the heavy producer finished
  std::mutex mu;
  std::vector<Served> served;
  std::vector<std::string> errors;

  int64_t now_us() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
  }
  void fail(const std::string &what, echomq_client *c, int st) {
    std::lock_guard<std::mutex> g(mu);
    errors.push_back(what + ": " + echomq_strerror(st) + (c ? std::string(" (") +
                     echomq_client_errmsg(c) + ")" : std::string()));
    abort = true;
  }
  /// The lane of a producer's job k (lane_of).
  std::string group_of(int producer, int k) const {
    return lane_of((*producers)[producer], mode, k);
  }
};

echomq_client *connect(Shared &s) {
  echomq_client *c = nullptr;
  int st = echomq_client_new(&c, nullptr);
  if (st != ECHOMQ_OK) {
    s.fail("client_new", nullptr, st);
    return nullptr;
  }
  st = echomq_client_connect(c, s.cfg->url.c_str());
  if (st != ECHOMQ_OK) {
    s.fail("connect " + s.cfg->url, c, st);
    echomq_client_free(c);
    return nullptr;
  }
  return c;
}

Tag encode_now(const Shared &s, int producer) { return Tag{producer, s.now_us()}; }

void sleep_until_us(const Shared &s, int64_t at_us) {
  std::this_thread::sleep_until(s.t0 + std::chrono::microseconds(at_us));
}

/// The heavy producer floods its lanes in a few large batches at once (in
/// the backlogged rounds every producer does, before the workers start).
void heavy_producer(Shared &s, echomq_client *c, int idx) {
  echomq_batch *b = echomq_batch_create();
  if (!b) {
    s.fail("batch_create", nullptr, ECHOMQ_ENOMEM);
    return;
  }
  const int jobs = (*s.producers)[idx].jobs;
  int left = jobs;
  while (left > 0 && !s.abort) {
    echomq_batch_clear(b);
    int n = std::min(left, kHeavyBatch);
    for (int i = 0; i < n; ++i) {
      Tag t = encode_now(s, idx);
      const std::string group = s.group_of(idx, jobs - left + i);
      int st = echomq_batch_add(b, group.c_str(), reinterpret_cast<const char *>(&t), sizeof t);
      if (st != ECHOMQ_OK) {
        s.fail("batch_add", nullptr, st);
        echomq_batch_free(b);
        return;
      }
    }
    int st = echomq_enqueue_batch(c, s.queue.c_str(), b, nullptr);
    if (st != ECHOMQ_OK) {
      s.fail("enqueue_batch", c, st);
      break;
    }
    left -= n;
  }
  echomq_batch_free(b);
  s.flood_done_us = s.now_us();
}

/// A quiet producer submits its few jobs in one burst, once the flood is in
/// (so every run sees the same backlog ahead of the quiet jobs).
void quiet_producer(Shared &s, echomq_client *c, int idx) {
  while (s.flood_done_us < 0 && !s.abort) std::this_thread::sleep_for(std::chrono::microseconds(200));
  sleep_until_us(s, s.flood_done_us +
                        1000LL * (s.cfg->quiet_start_ms + (idx - 1) * s.cfg->quiet_stagger_ms));
  echomq_batch *b = echomq_batch_create();
  if (!b) return s.fail("batch_create", nullptr, ECHOMQ_ENOMEM);
  for (int i = 0; i < (*s.producers)[idx].jobs; ++i) {
    Tag t = encode_now(s, idx);
    const std::string group = s.group_of(idx, i);
    int st = echomq_batch_add(b, group.c_str(), reinterpret_cast<const char *>(&t), sizeof t);
    if (st != ECHOMQ_OK) {
      s.fail("batch_add", nullptr, st);
      break;
    }
  }
  if (!s.abort) {
    int st = echomq_enqueue_batch(c, s.queue.c_str(), b, nullptr);
    if (st != ECHOMQ_OK) s.fail("enqueue_batch", c, st);
  }
  echomq_batch_free(b);
}

/// Records the job as served now, then simulates the handler's work.
bool handle(Shared &s, const echomq_job *j) {
  size_t len = 0;
  const char *p = echomq_job_payload(j, &len);
  if (len != sizeof(Tag)) {
    s.fail("payload of job " + std::to_string(echomq_job_id(j)), nullptr, ECHOMQ_EPROTO);
    return false;
  }
  Tag t;
  std::memcpy(&t, p, sizeof t);
  if (t.producer < 0 || size_t(t.producer) >= s.producers->size()) {
    s.fail("producer of job " + std::to_string(echomq_job_id(j)), nullptr, ECHOMQ_EPROTO);
    return false;
  }
  Served rec{t.producer, t.submit_us, s.now_us(), 0};
  const int work = (*s.producers)[t.producer].work;
  std::this_thread::sleep_for(std::chrono::microseconds(int64_t(s.cfg->handler_us) * work));
  rec.work_us = s.now_us() - rec.claim_us;
  std::lock_guard<std::mutex> g(s.mu);
  s.served.push_back(rec);
  return true;
}

bool drained(Shared &s) { return s.acked.load() >= s.total || s.abort; }

bool timed_out(Shared &s) {
  if (s.now_us() < kGiveUpUs) return false;
  s.fail("the queue did not drain within 60 s", nullptr, ECHOMQ_ETIMEOUT);
  return true;
}

/// claim modes: one job at a time; the ack of one job claims the next in the
/// same round trip (echomq_ack_claim); an idle worker blocks on the server.
void claim_worker(Shared &s, echomq_client *c) {
  echomq_job *cur = nullptr;
  while (!s.abort) {
    echomq_job *next = nullptr;
    int st;
    if (cur) {
      st = echomq_ack_claim(c, s.queue.c_str(), echomq_job_id(cur), echomq_job_token(cur),
                            kLeaseMs, &next);
      echomq_job_free(cur);
      cur = nullptr;
      if (st < 0) return s.fail("ack_claim", c, st);
      ++s.acked;
    } else {
      if (drained(s) || timed_out(s)) break;
      st = echomq_bclaim(c, s.queue.c_str(), kLeaseMs, kWaitMs, &next);
      if (st < 0) return s.fail("bclaim", c, st);
    }
    if (st == ECHOMQ_OK) {
      if (!handle(s, next)) return echomq_job_free(next);
      cur = next;
    }
  }
  echomq_job_free(cur);
}

bool ack(Shared &s, echomq_client *c, const echomq_job *j) {
  int st = echomq_ack(c, s.queue.c_str(), echomq_job_id(j), echomq_job_token(j));
  if (st != ECHOMQ_OK) {
    s.fail("ack", c, st);
    return false;
  }
  ++s.acked;
  return true;
}

/// weighted mode: wclaim takes up to weight jobs of one lane per turn.
void wclaim_worker(Shared &s, echomq_client *c) {
  while (!drained(s) && !timed_out(s)) {
    echomq_job_list *l = nullptr;
    int st = echomq_wclaim(c, s.queue.c_str(), kLeaseMs, kWclaimMax, &l);
    if (st < 0) return s.fail("wclaim", c, st);
    if (st == ECHOMQ_EMPTY) {
      // Nothing ready: wait on the server rather than poll.
      echomq_job *j = nullptr;
      st = echomq_bclaim(c, s.queue.c_str(), kLeaseMs, kWaitMs, &j);
      if (st < 0) return s.fail("bclaim", c, st);
      if (st == ECHOMQ_OK) {
        bool ok = handle(s, j) && ack(s, c, j);
        echomq_job_free(j);
        if (!ok) return;
      }
      continue;
    }
    // Run the turn's jobs, then settle them all in one round trip.
    std::vector<uint64_t> ids, tokens;
    bool ok = true;
    for (size_t i = 0; ok && i < echomq_job_list_count(l); ++i) {
      const echomq_job *j = echomq_job_list_at(l, i);
      ok = handle(s, j);
      ids.push_back(echomq_job_id(j));
      tokens.push_back(echomq_job_token(j));
    }
    echomq_job_list_free(l);
    size_t acked = 0;
    st = echomq_ack_many(c, s.queue.c_str(), ids.data(), tokens.data(), ids.size(), nullptr,
                         &acked);
    if (st != ECHOMQ_OK) return s.fail("ack_many", c, st);
    if (acked != ids.size()) return s.fail("ack_many: a lease was lost", nullptr, ECHOMQ_ESTALE);
    s.acked += acked;
    if (!ok) return;
  }
}

/// costs round: a host thread of the worker engine, which claims and settles
/// in batches and measures each job's handler time (next to done): in cost
/// mode that time is what the job's lane is charged.
void engine_host(Shared &s, echomq_worker *w) {
  while (!drained(s) && !timed_out(s)) {
    echomq_job *j = nullptr;
    int st = echomq_worker_next(w, kWaitMs, &j);
    if (st == ECHOMQ_EMPTY) continue;
    if (st != ECHOMQ_OK) return s.fail("worker_next", nullptr, st);
    bool ok = handle(s, j);
    st = echomq_worker_done(w, j);
    echomq_job_free(j);
    if (!ok) return;
    if (st != ECHOMQ_OK) return s.fail("worker_done", nullptr, st);
    ++s.acked;
  }
}

/// One engine for the mode, with a slot per host thread (no jobs held
/// unstarted beyond them, so the service order is the ring's); NULL on error.
echomq_worker *start_engine(Shared &s) {
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  o.slots = unsigned(s.cfg->workers);
  echomq_worker *w = nullptr;
  int st = echomq_worker_new(&w, s.cfg->url.c_str(), s.queue.c_str(), &o);
  if (st == ECHOMQ_OK) st = echomq_worker_start(w);
  if (st != ECHOMQ_OK) {
    s.fail("worker_start", nullptr, st);
    echomq_worker_free(w);
    return nullptr;
  }
  return w;
}

bool engine_mode(Mode m) { return m == Mode::count_fair || m == Mode::cost_fair; }

/// Leaves the queue as it found it and checks the invariants.
void check_queue(Shared &s, echomq_client *c) {
  echomq_report *rep = nullptr;
  int st = echomq_verify(c, s.queue.c_str(), &rep);
  if (st != ECHOMQ_OK) return s.fail("verify", c, st);
  for (size_t i = 0; i < echomq_report_count(rep); ++i)
    s.fail(std::string("invariant: ") + echomq_report_at(rep, i), nullptr, ECHOMQ_EINTERNAL);
  echomq_report_free(rep);
}

}  // namespace

ModeResult run_mode(const Config &cfg, const std::vector<Producer> &producers, Round round,
                    Mode mode) {
  Shared s;
  s.cfg = &cfg;
  s.producers = &producers;
  s.mode = mode;
  s.queue = std::string("emq-demo.") + mode_title(mode) + "." +
            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count());
  for (const auto &p : producers) s.total += p.jobs;

  ModeResult r;
  r.mode = mode;
  echomq_client *admin = connect(s);
  if (admin && mode == Mode::weighted) {
    for (size_t i = 0; i < producers.size(); ++i) {
      if (producers[i].weight == 1) continue;
      int st = echomq_set_weight(admin, s.queue.c_str(), producers[i].name.c_str(),
                                 producers[i].weight);
      if (st != ECHOMQ_OK) s.fail("set_weight", admin, st);
    }
  }
  if (admin && mode == Mode::cost_fair) {
    // A lane more than one light job's time ahead of the least served sits
    // out: the shares hold to within a heavy job (the bound: quantum + the
    // largest job's cost).
    int st = echomq_set_cost_mode(admin, s.queue.c_str(), uint64_t(std::max(cfg.handler_us, 1)));
    if (st != ECHOMQ_OK) s.fail("set_cost_mode", admin, st);
  }

  // Connect everyone first so connection set-up is not part of any wait.
  std::vector<echomq_client *> pc(producers.size()), wc(cfg.workers);
  for (auto &c : pc) c = s.abort ? nullptr : connect(s);
  for (auto &c : wc) c = s.abort ? nullptr : connect(s);

  echomq_worker *engine = nullptr;
  if (!s.abort) {
    s.t0 = Clock::now();
    // Backlogged rounds: every producer's jobs are in before the first claim.
    if (backlogged_round(round))
      for (size_t i = 0; i < producers.size() && !s.abort; ++i) heavy_producer(s, pc[i], int(i));
    if (!s.abort && engine_mode(mode)) engine = start_engine(s);
    std::vector<std::thread> threads;
    for (auto *c : wc)
      threads.emplace_back([&s, c, mode, engine] {
        if (engine) engine_host(s, engine);
        else if (mode == Mode::weighted) wclaim_worker(s, c);
        else claim_worker(s, c);
      });
    if (!backlogged_round(round))
      for (size_t i = 0; i < producers.size(); ++i)
        threads.emplace_back([&s, &pc, &producers, i] {
          producers[i].heavy ? heavy_producer(s, pc[i], int(i)) : quiet_producer(s, pc[i], int(i));
        });
    for (auto &t : threads) t.join();
    if (engine) {
      // The last acks go with the engine's next round trip: drain it.
      int st = echomq_worker_stop(engine, ECHOMQ_STOP_DRAIN, 5000);
      if (st != ECHOMQ_OK && !s.abort) s.fail("worker_stop", nullptr, st);
    }
    if (!s.abort && int(s.served.size()) != s.total)
      s.fail("served " + std::to_string(s.served.size()) + " of " + std::to_string(s.total) +
                 " jobs",
             nullptr, ECHOMQ_EINTERNAL);
    if (admin && !s.abort) check_queue(s, admin);
  }
  echomq_worker_free(engine);
  for (auto *c : pc) echomq_client_free(c);
  for (auto *c : wc) echomq_client_free(c);
  echomq_client_free(admin);

  std::sort(s.served.begin(), s.served.end(),
            [](const Served &a, const Served &b) { return a.claim_us < b.claim_us; });
  r.served = std::move(s.served);
  r.duration_us = r.served.empty() ? 0 : r.served.back().claim_us;
  r.errors = int(s.errors.size());
  r.messages = std::move(s.errors);
  return r;
}

}  // namespace demo
