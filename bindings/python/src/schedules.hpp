// schedules.hpp: the schedule calls of echomq._echomq (schedules.cpp), as
// module functions taking the Client: echomq/schedules.py wraps them.
#pragma once

#include <pybind11/pybind11.h>

namespace emqpy {

void register_schedules(pybind11::module_ &m);

}  // namespace emqpy
