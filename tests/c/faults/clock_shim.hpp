// The clock shim (clock_shift.c, preloaded into a server): the server's wall
// clock runs ahead or behind by the milliseconds written in a file.
#pragma once

#include "test_env.hpp"

#include <stdlib.h>

#include <fstream>
#include <string>

namespace emqtest {

/// Writes the shift (ms) the clock shim adds to the server's wall clock.
inline void shift_clock(const std::string &file, long long ms) {
  std::ofstream(file) << ms << "\n";
  sleep_ms(30);  // the shim reads the file at most every 5 ms
}

/// Runs `start` (which starts servers) with the shim preloaded and reading
/// `file`, its shift 0 to begin with; the servers started keep it.
template <class Start>
void start_with_clock_shim(const std::string &file, Start start) {
  shift_clock(file, 0);
  setenv("ECHOMQ_CLOCK_SHIFT_FILE", file.c_str(), 1);
  setenv("LD_PRELOAD", EMQ_CLOCK_SHIM, 1);
  start();
  unsetenv("LD_PRELOAD");
  unsetenv("ECHOMQ_CLOCK_SHIFT_FILE");
}

}  // namespace emqtest
