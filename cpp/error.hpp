// Typed errors of the core. They carry a Status (types.hpp) and stay inside
// the library: the C API turns every one (and anything else) into a status.
#pragma once

#include <stdexcept>
#include <string>

#include "types.hpp"

namespace echomq {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

[[noreturn]] inline void fail(int code, const std::string& msg) { throw Error(code, msg); }
[[noreturn]] inline void invalid(const std::string& msg) { throw Error(kInvalid, msg); }

}  // namespace echomq
