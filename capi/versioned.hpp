// Versioned option structs: a caller built against an older header passes
// that version and gets a struct that ends where that version ended.
#pragma once

#include <cstddef>
#include <cstring>

#include "echomq/echomq.h"

namespace emqcapi {

// Fills *opts with the defaults `d` for `version`: the current one, or the
// first one (`v1`), whose struct is `v1_size` bytes long.
template <class T>
int initOptions(T* opts, unsigned int version, const T& d, unsigned int v1, size_t v1_size) {
  if (!opts) return ECHOMQ_EINVAL;
  if (version == v1) {
    std::memcpy(static_cast<void*>(opts), &d, v1_size);
    opts->version = version;
    return ECHOMQ_OK;
  }
  if (version != d.version) return ECHOMQ_EINVAL;
  *opts = d;
  return ECHOMQ_OK;
}

}  // namespace emqcapi
