/* echomq.hpp — RAII owners for the handles of the C API, for C++ callers.
 *
 * Header only; it adds no symbol to libechomq. Each alias is a
 * std::unique_ptr whose deleter calls the handle's echomq_*_free, so every
 * handle the C API gives out has exactly one owner:
 *
 *   echomq::ClientPtr c;
 *   { echomq_client *raw = nullptr;
 *     if (echomq_client_new(&raw, NULL) == ECHOMQ_OK) c.reset(raw); }
 *   if (c && echomq_client_connect(c.get(), url) != ECHOMQ_OK) ... echomq_client_errmsg(c.get())
 *
 * Thread safety is the C API's: one thread at a time per handle
 * (echomq_worker: any number). The deleters never throw.
 */
#ifndef ECHOMQ_ECHOMQ_HPP
#define ECHOMQ_ECHOMQ_HPP

#include <echomq/echomq.h>

#include <memory>

namespace echomq {

/** Frees any handle of the C API (overloaded by handle type). */
struct Free {
  void operator()(echomq_client *p) const noexcept { echomq_client_free(p); }
  void operator()(echomq_job *p) const noexcept { echomq_job_free(p); }
  void operator()(echomq_job_list *p) const noexcept { echomq_job_list_free(p); }
  void operator()(echomq_lane_list *p) const noexcept { echomq_lane_list_free(p); }
  void operator()(echomq_batch *p) const noexcept { echomq_batch_free(p); }
  void operator()(echomq_settle *p) const noexcept { echomq_settle_free(p); }
  void operator()(echomq_report *p) const noexcept { echomq_report_free(p); }
  void operator()(echomq_worker *p) const noexcept { echomq_worker_free(p); }
  void operator()(echomq_event_list *p) const noexcept { echomq_event_list_free(p); }
  void operator()(echomq_schedule_list *p) const noexcept { echomq_schedule_list_free(p); }
  void operator()(echomq_flow *p) const noexcept { echomq_flow_free(p); }
  void operator()(echomq_flow_info *p) const noexcept { echomq_flow_info_free(p); }
};

template <class T>
using Owned = std::unique_ptr<T, Free>;

using ClientPtr = Owned<echomq_client>;
using JobPtr = Owned<echomq_job>;
using JobListPtr = Owned<echomq_job_list>;
using LaneListPtr = Owned<echomq_lane_list>;
using BatchPtr = Owned<echomq_batch>;
using SettlePtr = Owned<echomq_settle>;
using ReportPtr = Owned<echomq_report>;
using WorkerPtr = Owned<echomq_worker>;
using EventListPtr = Owned<echomq_event_list>;
using ScheduleListPtr = Owned<echomq_schedule_list>;
using FlowPtr = Owned<echomq_flow>;
using FlowInfoPtr = Owned<echomq_flow_info>;

}  // namespace echomq

#endif /* ECHOMQ_ECHOMQ_HPP */
