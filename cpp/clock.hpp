// The local monotonic clock, for deadlines and handler times inside this
// process only (queue times are always the server's TIME).
#pragma once

#include <chrono>
#include <cstdint>

namespace echomq {

inline int64_t steadyMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

inline int64_t steadyUs() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace echomq
