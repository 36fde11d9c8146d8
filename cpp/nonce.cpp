#include "nonce.hpp"

#include <sys/random.h>

#include <cerrno>
#include <random>

#include "types.hpp"


namespace echomq {

namespace {

uint64_t randomBits() {
  uint64_t v = 0;
  auto* p = reinterpret_cast<unsigned char*>(&v);
  size_t got = 0;
  while (got < sizeof v) {
    ssize_t n = getrandom(p + got, sizeof v - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      // No getrandom (old kernel, seccomp): the library's own CSPRNG device.
      std::random_device rd;
      return (static_cast<uint64_t>(rd()) << 32) ^ rd();
    }
  }
  return v;
}

}  // namespace

uint64_t freshNonce() {
  // 53 random bits; 0 is not a nonce (the range is 1..ID_MAX = 2^53 - 1).
  for (;;) {
    uint64_t v = randomBits() & static_cast<uint64_t>(kIdMax);
    if (v != 0) return v;
  }
}

}  // namespace echomq
