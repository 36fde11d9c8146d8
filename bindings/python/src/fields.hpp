// fields.hpp: an option struct of the C API read from (and written to) a
// Python dict by field name, so that its numeric fields are named once, in
// a table beside the struct's use (queue.cpp: enqueue options, worker.cpp:
// worker options). A name the table does not know is a bug in the Python
// layer: ValueError.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "bind.hpp"

namespace emqpy {

template <class S>
struct Field {
  const char *name;
  std::variant<int S::*, unsigned int S::*, int64_t S::*, uint64_t S::*> member;
};

template <class S, size_t N>
void read_fields(S &s, const Field<S> (&table)[N], const py::dict &d) {
  for (auto item : d) {
    const std::string key = py::cast<std::string>(item.first);
    bool known = false;
    for (const Field<S> &f : table) {
      if (key != f.name) continue;
      std::visit([&](auto m) { s.*m = py::cast<std::remove_reference_t<decltype(s.*m)>>(item.second); }, f.member);
      known = true;
      break;
    }
    if (!known) throw py::value_error("unknown option '" + key + "'");
  }
}

template <class S, size_t N>
py::dict write_fields(const S &s, const Field<S> (&table)[N]) {
  py::dict d;
  for (const Field<S> &f : table) std::visit([&](auto m) { d[f.name] = s.*m; }, f.member);
  return d;
}

}  // namespace emqpy
