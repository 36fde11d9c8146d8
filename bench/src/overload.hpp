// overload.hpp — workload (e) of `echomq_bench compare`: sustained overload.
#pragma once

#include <cstdint>
#include <string>

namespace bench {

struct OverloadOptions {
  int threads = 8;              // host threads (the handlers)
  unsigned slots = 128;         // engine slots
  int target_wait_ms = -1;      // -1 = the engine's default
  uint64_t backlog = 20000;     // heavy jobs kept pending
  uint64_t quiet = 20;          // quiet tenants
  double quiet_rate = 400;      // quiet jobs/s, all together
  double handler_ms = 2;        // every handler's time
  double warmup_s = 3, window_s = 10, max_wait_s = 30;
};

/// Runs the workload on `queue` (fresh) and returns its JSON object.
std::string workload_overload(const std::string &url, const std::string &queue, const OverloadOptions &o);

}  // namespace bench
