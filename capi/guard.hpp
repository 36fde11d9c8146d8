// Every extern "C" body runs inside guard(): any exception becomes a status
// code, so nothing ever crosses the ABI. One mapping for every file of capi/.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "echomq/echomq.h"
#include "error.hpp"
#include "handles.hpp"

namespace emqcapi {

// Runs fn (returning a status) and maps every exception to a status.
template <class F>
int guard(F&& fn) noexcept {
  try {
    return fn();
  } catch (const echomq::Error& e) {
    return e.code();
  } catch (const std::bad_alloc&) {
    return ECHOMQ_ENOMEM;
  } catch (...) {
    return ECHOMQ_EINTERNAL;
  }
}

inline int clientOk(echomq_client* c) {
  c->errcode = ECHOMQ_OK;
  c->errmsg.clear();
  return ECHOMQ_OK;
}

inline int clientError(echomq_client* c, int code, const char* msg) {
  c->errcode = code;
  try {
    c->errmsg = msg;
  } catch (...) {
    c->errmsg.clear();  // out of memory for the message itself
  }
  return code;
}

// Runs fn on a live client handle; maps every exception to a status and
// the handle's message. A call that wrote and was not confirmed durable in
// time is ECHOMQ_UNCONFIRMED.
template <class F>
int guarded(echomq_client* c, F&& fn) noexcept {
  if (!c) return ECHOMQ_EINVAL;
  try {
    c->core.beginCall();
    fn();
    const std::string why = c->core.confirmWrites();
    if (!why.empty()) return clientError(c, ECHOMQ_UNCONFIRMED, why.c_str());
    return clientOk(c);
  } catch (const echomq::Error& e) {
    return clientError(c, e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return clientError(c, ECHOMQ_ENOMEM, "out of memory");
  } catch (const std::exception& e) {
    return clientError(c, ECHOMQ_EINTERNAL, e.what());
  } catch (...) {
    return clientError(c, ECHOMQ_EINTERNAL, "unknown internal error");
  }
}

}  // namespace emqcapi
