// lanes.cpp: lane control and the queue's defaults (capi/include/echomq/lanes.h).
#include "bind.hpp"

namespace emqpy {

void bind_lanes(py::class_<Client> &c) {
  const auto q = py::arg("queue");
  const auto g = py::arg("group");
  def<&echomq_set_weight>(c, "set_weight", q, g, py::arg("weight"), "Set a lane's weight.");
  def<&echomq_clear_weight>(c, "clear_weight", q, g, "Return a lane to the default weight.");
  def<&echomq_set_limit>(c, "set_limit", q, g, py::arg("limit"), "Set a lane's concurrency ceiling.");
  def<&echomq_clear_limit>(c, "clear_limit", q, g, "Return a lane to the default limit.");
  def<&echomq_pause>(c, "pause", q, g, "Pause a lane.");
  def<&echomq_resume>(c, "resume", q, g, "Resume a paused lane.");
  def<&echomq_set_rate>(c, "set_rate", q, g, py::arg("jobs"), py::arg("period_ms"), py::arg("burst"),
                        "Set a lane's rate limit.");
  def<&echomq_clear_rate>(c, "clear_rate", q, g, "Return a lane to the default rate.");
  def<&echomq_throttle>(c, "throttle", q, g, py::arg("ms"), "Start no job of a lane for ms.");
  def<&echomq_set_cap>(c, "set_cap", q, g, py::arg("cap"), "Set a lane's size cap.");
  def<&echomq_clear_cap>(c, "clear_cap", q, g, "Return a lane to the default cap.");
  def<&echomq_charge>(c, "charge", q, g, py::arg("cost"), "Charge a lane cost units (cost mode).");

  def<&echomq_set_default_rate>(c, "set_default_rate", q, py::arg("jobs"), py::arg("period_ms"), py::arg("burst"),
                                "Set the queue's default rate limit (jobs 0 clears it).");
  def<&echomq_set_default_cap>(c, "set_default_cap", q, py::arg("cap"),
                               "Set the queue's default size cap (0 clears it).");
  def<&echomq_set_default_weight>(c, "set_default_weight", q, py::arg("weight"), "Set the queue's default lane weight.");
  def<&echomq_set_default_limit>(c, "set_default_limit", q, py::arg("limit"),
                                 "Set the queue's default lane limit (0 clears it).");
  def<&echomq_set_default_max_attempts>(c, "set_default_max_attempts", q, py::arg("max_attempts"),
                                        "Set the queue's default attempt budget.");
  def<&echomq_set_cost_mode>(c, "set_cost_mode", q, py::arg("quantum"), "Turn cost mode on (quantum 1..) or off (0).");
  def<&echomq_get_cost_mode>(c, "get_cost_mode", q, "The queue's cost quantum (0 = cost mode off).");
  def<&echomq_set_wait_figures>(c, "set_wait_figures", q, py::arg("window_s"),
                                "Turn the wait figures on (window 1.. s) or off (0).");
  def<&echomq_get_wait_figures>(c, "get_wait_figures", q, "The queue's wait figures window in s (0 = off).");
}

}  // namespace emqpy
