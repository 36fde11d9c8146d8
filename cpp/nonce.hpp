// Fresh random nonces for the fencing tokens of claims (docs/architecture.md,
// "Fencing tokens").
#pragma once

#include <cstdint>

namespace echomq {

// A uniformly random integer in 1..kIdMax from the operating system's
// CSPRNG (getrandom), fresh per call. Thread-safe.
uint64_t freshNonce();

}  // namespace echomq
