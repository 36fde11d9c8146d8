// common.hpp — small shared pieces of the benchmark: error log, RAII over
// the C API handles, timing and parallel runs.
#pragma once

#include <echomq/echomq.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace bench {

/// Every unexpected status lands here; a non-empty log fails the run.
class ErrorLog {
 public:
  void add(const std::string &msg);
  int count() const { return count_.load(); }
  std::vector<std::string> messages() const;

 private:
  std::atomic<int> count_{0};
  mutable std::mutex mu_;
  std::vector<std::string> msgs_;  // the first few only
};

ErrorLog &errors();

/// Records an error unless st is ECHOMQ_OK (or ECHOMQ_EMPTY when allowed).
/// Returns true when the call succeeded.
bool ok(int st, const echomq_client *c, const std::string &what, bool empty_ok = false);

/// A connected client handle; empty (get() == nullptr) if connecting failed.
class Client {
 public:
  explicit Client(const std::string &url);
  ~Client() { echomq_client_free(c_); }
  Client(const Client &) = delete;
  Client &operator=(const Client &) = delete;
  echomq_client *get() const { return c_; }

 private:
  echomq_client *c_ = nullptr;
};

/// One connected client per worker, reused across the runs of a section.
std::vector<std::unique_ptr<Client>> clients(const std::string &url, int n);

using Job = echomq::JobPtr;
using JobList = echomq::JobListPtr;
using Batch = echomq::BatchPtr;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0);

/// User CPU seconds of this process so far (all threads).
double user_cpu_seconds();

/// Runs body(i) for i in [0, n) on n threads released together; returns the
/// seconds from the release to the last thread's end.
double parallel(int n, const std::function<void(int)> &body);

/// Median of a non-empty sample (0 for an empty one).
double median(std::vector<double> v);

/// A count as printed in figure names: 10, 1k, 100k, 1M.
std::string count_name(uint64_t n);

/// The lane name used for lane index i ("l" + i).
std::string lane_name(uint64_t i);

/// Enqueues `jobs` jobs round-robin over `lanes` lanes named by lane_name
/// (lane index + first_lane), in batches. Returns false after an error.
bool load(echomq_client *c, const std::string &queue, uint64_t lanes, uint64_t jobs,
          size_t payload_bytes, uint64_t first_lane = 0);

/// The arrival order of a skewed load: counts[p] jobs of producer p,
/// interleaved so that each producer's jobs are spread evenly over the
/// sequence (job j of p sits at (j + 0.5) / counts[p]; ties by p). The
/// compare scripts compute the same order.
std::vector<int> interleave(const std::vector<uint64_t> &counts);

/// Runs echomq_verify and records each violation as an error.
bool verify(echomq_client *c, const std::string &queue, const std::string &where);

/// Queue figures; zeros (and an error) on failure.
echomq_queue_stats stats(echomq_client *c, const std::string &queue);

}  // namespace bench
