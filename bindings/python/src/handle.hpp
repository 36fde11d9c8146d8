// handle.hpp: a thread-safe owner of one echomq_client handle.
//
// The C API lets one thread at a time use a handle. Python code may share a
// Client between threads, so every call is serialised here by a mutex that is
// taken only after the GIL has been released (taking it with the GIL held
// could deadlock against a thread that waits for the GIL while holding it).
// Nothing in this file touches a Python object: these methods run without
// the GIL.
#pragma once

#include <echomq/echomq.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace emqpy {

// A failed C call: its status code and the handle's message. Translated into
// the Python exception hierarchy (echomq.errors) by the module.
struct Error {
  int code;
  std::string message;
};

using echomq::BatchPtr;
using echomq::JobListPtr;
using echomq::JobPtr;
using echomq::LaneListPtr;
using echomq::ReportPtr;
using echomq::WorkerPtr;

// Refuses a string with an embedded NUL: the C API takes NUL-terminated
// names, so such a name would silently be cut. Throws Error{ECHOMQ_EINVAL}.
const char *cstr(const std::string &s, const char *what);

// Throws Error for a status below zero; returns the status otherwise.
[[noreturn]] void throw_status(int status, const char *message);

// Why the last call made on this thread wrote but was not confirmed durable
// in time (ECHOMQ_UNCONFIRMED), "" if none; clears it. Per thread: a call
// runs on its caller's thread, with or without the GIL.
std::string take_unconfirmed();
void note_unconfirmed(const char *message);

class Client {
 public:
  // Creates the handle (no I/O). Throws Error on bad options.
  Client(int connect_timeout_ms, int command_timeout_ms, std::size_t max_payload_bytes,
         int wait_replicas = 0, int wait_aof = 0, int wait_timeout_ms = 1000);
  ~Client();
  Client(const Client &) = delete;
  Client &operator=(const Client &) = delete;

  // Runs f(handle) under the call lock and turns a negative status into an
  // Error carrying the handle's message. Returns the (non-negative) status.
  template <class F>
  int call(F &&f) {
    std::lock_guard<std::mutex> lock(call_mu_);
    if (c_ == nullptr) throw Error{ECHOMQ_ECONN, "client is closed"};
    int rc = f(c_);
    if (rc < 0) fail(rc);
    if (rc == ECHOMQ_UNCONFIRMED) note_unconfirmed(echomq_client_errmsg(c_));
    return rc;
  }

  // Interrupts a call in progress from another thread (echomq_client_cancel).
  void cancel() noexcept;
  // Interrupts any call in progress, then closes and frees the handle.
  void close() noexcept;
  bool closed() const noexcept;
  // True if connected (no I/O); true while another thread's call is in progress.
  bool connected();

 private:
  [[noreturn]] void fail(int rc);

  echomq_client *c_ = nullptr;
  std::mutex call_mu_;    // serialises calls on c_
  mutable std::mutex handle_mu_;  // guards c_'s lifetime for cancel()
};

}  // namespace emqpy
