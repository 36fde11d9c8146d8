// The Lua scripts, flattened and embedded at build time (lua/CMakeLists.txt,
// cmake/EmbedLua.cmake), with the key names of lua/keys.txt.
#pragma once

#include <cstddef>

namespace echomq::scripts {

struct Source {
  const char* name;            // file name without ".lua", e.g. "take"
  int num_keys;                // how many keys the script receives
  const unsigned char* keys;   // their indexes in kKeyNames, in order
  const char* text;
  std::size_t size;
  // A script marked `--@function` (the hot paths) is also a Valkey function
  // library: the function's name and the library's text; else null and 0.
  const char* fn_name;
  const char* fn_text;
  std::size_t fn_size;
};

extern const Source kAll[];
extern const std::size_t kCount;
// The fixed keys of a queue, "emq:{q}:<name>", in the one shared order.
extern const char* const kKeyNames[];
extern const std::size_t kNumKeyNames;

}  // namespace echomq::scripts
