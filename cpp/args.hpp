// Writes the arguments of a script call (after the key prefix) in the layout
// lua/args.txt gives the script: the one description of a call, generated
// into args_gen.hpp for the core and read by lua/includes/args.lua on the
// server, so no position is counted by hand on either side. The counts of
// fixed arguments, of a row's fields and of an option's values are checked
// when this compiles; the order of sections and options, and that each
// section gets the rows it announced, when the call is written (a mistake
// there is the core's: kInternal, before any I/O).
//
//   ArgWriter<args::Take> w(argv);
//   w.fixed(lease_ms, n, turns, "1", flags, nonce);
//   w.section<args::Take::Acks>(acks.size());
//   for (...) w.row<args::Take::Acks>(id, token);
//   ... w.done();
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "args_gen.hpp"
#include "client.hpp"
#include "connection.hpp"
#include "error.hpp"

namespace echomq {

template <class Layout>
class ArgWriter {
 public:
  explicit ArgWriter(Argv& a) : a_(a) {}

  // The fixed arguments, after the mode's name for a script with modes.
  template <class... V>
  ArgWriter& fixed(const V&... v) {
    static_assert(sizeof...(V) == Layout::kFixed, "lua/args.txt: the script's fixed arguments");
    if constexpr (Layout::kMode != nullptr) a_.ref(Layout::kMode, std::strlen(Layout::kMode));
    (put(v), ...);
    return *this;
  }
  // Section S follows with `rows` rows.
  template <class S>
  ArgWriter& section(size_t rows) {
    static_assert(std::is_same_v<typename S::Of, Layout>, "lua/args.txt: a section of another script");
    next(S::kOrder);
    rows_[S::kOrder] = rows;
    left_ = rows;
    a_.own(static_cast<long long>(rows));
    return *this;
  }
  // One row of section S, its fields in order.
  template <class S, class... V>
  ArgWriter& row(const V&... v) {
    static_assert(std::is_same_v<typename S::Of, Layout>, "lua/args.txt: a section of another script");
    static_assert(sizeof...(V) == S::kFields, "lua/args.txt: the fields of a row");
    if (at_ != S::kOrder + 1 || left_ == 0) order("a row past its section's count");
    --left_;
    (put(v), ...);
    return *this;
  }
  // Option O: its name and values, then (perRow) one value per row of the
  // section it names.
  template <class O, class... V>
  ArgWriter& option(const V&... v) {
    static_assert(std::is_same_v<typename O::Of, Layout>, "lua/args.txt: an option of another script");
    static_assert(sizeof...(V) == O::kValues, "lua/args.txt: the values of an option");
    next(O::kOrder);
    a_.ref(O::kName, std::strlen(O::kName));
    (put(v), ...);
    if constexpr (O::kRowsOf != O::kNone) left_ = rows_[O::kRowsOf];
    return *this;
  }
  template <class O, class V>
  ArgWriter& perRow(const V& v) {
    static_assert(O::kRowsOf != O::kNone, "lua/args.txt: the option has no value per row");
    if (at_ != O::kOrder + 1 || left_ == 0) order("a value past its section's rows");
    --left_;
    put(v);
    return *this;
  }
  // The call is whole (before it is sent).
  void done() {
    if (left_ != 0) order("a section short of its rows");
  }

 private:
  void next(size_t part) {
    if (left_ != 0) order("a section short of its rows");
    if (part < at_) order("sections or options out of order");
    at_ = part + 1;
  }
  [[noreturn]] void order(const char* what) {
    fail(kInternal, std::string(Layout::kScript) + ": arguments not as lua/args.txt says (" + what + ")");
  }
  void put(const std::string& s) { a_.ref(s); }
  void put(const char* s) { a_.ref(s, std::strlen(s)); }
  struct Bytes {
    const char* p;
    size_t n;
  };
  void put(const Bytes& b) { a_.ref(b.p ? b.p : "", b.n); }
  template <class N, std::enable_if_t<std::is_integral_v<N>, int> = 0>
  void put(N v) {
    a_.own(std::to_string(v));
  }

 public:
  // Borrowed bytes of a given length (binary names and payloads).
  static Bytes bytes(const char* p, size_t n) { return Bytes{p, n}; }

 private:
  Argv& a_;
  size_t at_ = 0;    // the next part (section or option) may not come before this
  size_t left_ = 0;  // rows (or per-row values) still owed
  size_t rows_[Layout::kParts > 0 ? Layout::kParts : 1] = {};
};

template <class L>
ArgWriter<L> Client::call(Script s, const QueueKeys& k) {
  if (std::strcmp(L::kScript, scripts_.name(s)) != 0)
    echomq::fail(kInternal, std::string("the arguments of ") + L::kScript + " written for " + scripts_.name(s));
  return ArgWriter<L>(start(s, k));
}

}  // namespace echomq
