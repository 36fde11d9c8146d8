// Host threads that pull jobs from worker engines and ack them, counting
// how often each job id was handed out: the exactly-once check of the
// engine, sharded and cluster tests.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_env.hpp"

namespace emqtest {

class EngineDrain {
 public:
  ~EngineDrain() { stop(); }
  /// `threads` hosts pulling from w, each pausing pause_ms after an ack;
  /// their counts go under `tag` (one per engine's queue).
  void run(echomq_worker *w, int threads, int pause_ms = 0, const std::string &tag = "");
  /// Waits until `n` distinct jobs were handed out (under tag) or ms pass.
  void wait_for(size_t n, int64_t ms, const std::string &tag = "");
  /// Stops the hosts (stop the engines first, to settle what they hold).
  void stop();
  /// Every job handed out exactly once, and n of them (under tag).
  void require_each_once(size_t n, const std::string &tag = "");
  /// Starts an engine on url/queue that this drain owns, with `threads`
  /// hosts pulling from it (counted under tag).
  void add_engine(const std::string &url, const std::string &queue, const echomq_worker_options &o, int threads,
                  int pause_ms = 0, const std::string &tag = "");
  /// Waits for n jobs, stops the owned engines (drain: each must settle
  /// what it holds) and the hosts, and requires each job handed out once.
  void finish(size_t n, int64_t ms, const std::string &tag = "");
  size_t count(const std::string &tag = "");

 private:
  std::mutex mu_;
  std::map<std::string, std::map<uint64_t, int>> done_;
  std::atomic<bool> quit_{false};
  std::vector<std::thread> hosts_;
  std::vector<WorkerPtr> engines_;
};

/// The shard queues of a sharded queue (asserts the call worked).
std::vector<std::string> shard_names(echomq_client *c, const std::string &queue);

}  // namespace emqtest
