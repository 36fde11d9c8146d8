// The Lua scripts, flattened and embedded at build time (lua/CMakeLists.txt).
#pragma once

#include <cstddef>

namespace echomq::scripts {

struct Source {
  const char* name;  // file name without "-<keys>.lua", e.g. "claim"
  int num_keys;
  const char* text;
  std::size_t size;
};

extern const Source kAll[];
extern const std::size_t kCount;

}  // namespace echomq::scripts
