// Every extern "C" body runs inside guard(): any exception becomes a status
// code, so nothing ever crosses the ABI. One mapping for every file of capi/.
#pragma once

#include <new>

#include "echomq/echomq.h"
#include "error.hpp"

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

}  // namespace emqcapi
