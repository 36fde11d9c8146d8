// common.cpp — see common.hpp.
#include "common.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <thread>

namespace bench {

void ErrorLog::add(const std::string &msg) {
  ++count_;
  std::lock_guard<std::mutex> g(mu_);
  if (msgs_.size() < 20) msgs_.push_back(msg);
}

std::vector<std::string> ErrorLog::messages() const {
  std::lock_guard<std::mutex> g(mu_);
  return msgs_;
}

ErrorLog &errors() {
  static ErrorLog log;
  return log;
}

bool ok(int st, const echomq_client *c, const std::string &what, bool empty_ok) {
  if (st == ECHOMQ_OK || (empty_ok && st == ECHOMQ_EMPTY)) return true;
  std::string msg = what + ": " + echomq_strerror(st);
  if (c && st != ECHOMQ_EMPTY) msg += std::string(" (") + echomq_client_errmsg(c) + ")";
  errors().add(msg);
  return false;
}

Client::Client(const std::string &url) {
  if (!ok(echomq_client_new(&c_, nullptr), nullptr, "client_new")) return;
  if (!ok(echomq_client_connect(c_, url.c_str()), c_, "connect " + url)) {
    echomq_client_free(c_);
    c_ = nullptr;
  }
}

std::vector<std::unique_ptr<Client>> clients(const std::string &url, int n) {
  std::vector<std::unique_ptr<Client>> v;
  for (int i = 0; i < n; ++i) v.push_back(std::make_unique<Client>(url));
  return v;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double user_cpu_seconds() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) / 1e6;
}

double parallel(int n, const std::function<void(int)> &body) {
  if (n == 1) {
    auto t0 = Clock::now();
    body(0);
    return seconds_since(t0);
  }
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&, i] {
      ++ready;
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(i);
    });
  while (ready.load() < n) std::this_thread::yield();
  auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto &t : ts) t.join();
  return seconds_since(t0);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string count_name(uint64_t n) {
  if (n >= 1000000 && n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
  if (n >= 1000 && n % 1000 == 0) return std::to_string(n / 1000) + "k";
  return std::to_string(n);
}

std::string lane_name(uint64_t i) { return "l" + std::to_string(i); }

bool load(echomq_client *c, const std::string &queue, uint64_t lanes, uint64_t jobs,
          size_t payload_bytes, uint64_t first_lane) {
  // Batches of 10,000 keep each script call short (the server does nothing
  // else while a script runs) while still loading a million jobs quickly.
  constexpr uint64_t kChunk = 10000;
  Batch b(echomq_batch_create());
  if (!b) return ok(ECHOMQ_ENOMEM, nullptr, "batch_create");
  const std::string payload(payload_bytes, 'x');
  std::vector<std::string> names;
  if (lanes <= 100000) {  // cache the names of small lane sets
    for (uint64_t i = 0; i < lanes; ++i) names.push_back(lane_name(first_lane + i));
  }
  for (uint64_t k = 0; k < jobs;) {
    echomq_batch_clear(b.get());
    uint64_t end = std::min(jobs, k + kChunk);
    for (; k < end; ++k) {
      uint64_t lane = k % lanes;
      const std::string name = names.empty() ? lane_name(first_lane + lane) : names[lane];
      if (!ok(echomq_batch_add(b.get(), name.c_str(), payload.data(), payload.size()), nullptr,
              "batch_add"))
        return false;
    }
    if (!ok(echomq_enqueue_batch(c, queue.c_str(), b.get(), nullptr), c, "enqueue_batch (load)"))
      return false;
  }
  return true;
}

std::vector<int> interleave(const std::vector<uint64_t> &counts) {
  struct Slot {
    double pos;
    int producer;
  };
  std::vector<Slot> slots;
  for (size_t p = 0; p < counts.size(); ++p)
    for (uint64_t j = 0; j < counts[p]; ++j)
      slots.push_back({(double(j) + 0.5) / double(counts[p]), int(p)});
  std::stable_sort(slots.begin(), slots.end(), [](const Slot &a, const Slot &b) {
    return a.pos != b.pos ? a.pos < b.pos : a.producer < b.producer;
  });
  std::vector<int> order;
  order.reserve(slots.size());
  for (const auto &s : slots) order.push_back(s.producer);
  return order;
}

bool verify(echomq_client *c, const std::string &queue, const std::string &where) {
  echomq_report *rep = nullptr;
  if (!ok(echomq_verify(c, queue.c_str(), &rep), c, "verify " + where)) return false;
  size_t n = echomq_report_count(rep);
  for (size_t i = 0; i < n; ++i)
    errors().add("verify " + where + ": " + echomq_report_at(rep, i));
  echomq_report_free(rep);
  return n == 0;
}

echomq_queue_stats stats(echomq_client *c, const std::string &queue) {
  echomq_queue_stats s{};
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  ok(echomq_stats(c, queue.c_str(), &s), c, "stats");
  return s;
}

}  // namespace bench
