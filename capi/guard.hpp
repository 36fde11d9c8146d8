// The one boundary helper of capi/: every extern "C" body runs inside
// guard() (a call without a client handle) or guarded() (a call on one).
// Any exception becomes a status code, so nothing ever crosses the ABI; one
// ladder of catches maps them all (guardWith).
#pragma once

#include <exception>
#include <new>
#include <string>
#include <type_traits>

#include "echomq/echomq.h"
#include "error.hpp"
#include "handles.hpp"

namespace emqcapi {

// Runs fn: its status, or ECHOMQ_OK when it returns nothing.
template <class F>
int statusOf(F&& fn) {
  if constexpr (std::is_void_v<decltype(fn())>) {
    fn();
    return ECHOMQ_OK;
  } else {
    return fn();
  }
}

// Runs fn (statusOf); an exception becomes onError(status, message), which
// must not throw.
template <class F, class E>
int guardWith(F&& fn, E&& onError) noexcept {
  try {
    return statusOf(fn);
  } catch (const echomq::Error& e) {
    return onError(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return onError(ECHOMQ_ENOMEM, "out of memory");
  } catch (const std::exception& e) {
    return onError(ECHOMQ_EINTERNAL, e.what());
  } catch (...) {
    return onError(ECHOMQ_EINTERNAL, "unknown internal error");
  }
}

// A call without a client handle: the status alone.
template <class F>
int guard(F&& fn) noexcept {
  return guardWith(fn, [](int code, const char*) { return code; });
}

// Records the status and message of the call on c (what
// echomq_client_errcode / _errmsg read); returns the status.
inline int record(echomq_client* c, int code, const char* msg) noexcept {
  c->errcode = code;
  try {
    c->errmsg = msg;
  } catch (...) {
    c->errmsg.clear();  // out of memory for the message itself
  }
  return code;
}

// A call on client c: fn's status (ECHOMQ_OK when it returns nothing; a
// non-negative status such as ECHOMQ_EMPTY leaves no message), or the
// error it threw, recorded on c. A call that wrote and was not confirmed
// durable in time is ECHOMQ_UNCONFIRMED with the reason as its message.
template <class F>
int guarded(echomq_client* c, F&& fn) noexcept {
  if (!c) return ECHOMQ_EINVAL;
  return guardWith(
      [&] {
        c->core.beginCall();
        const int st = statusOf(fn);
        const std::string why = c->core.confirmWrites();
        if (!why.empty()) return record(c, ECHOMQ_UNCONFIRMED, why.c_str());
        record(c, ECHOMQ_OK, "");
        return st;
      },
      [&](int code, const char* msg) { return record(c, code, msg); });
}

// Throws EINVAL for a NULL out-parameter.
inline void requireOut(const void* p, const char* name) {
  if (!p) echomq::invalid(std::string(name) + " is NULL");
}

}  // namespace emqcapi
