// Every versioned struct of the C API, read and written one way. A caller
// built against an older header passes that version's number and has a
// struct that ends where that version ended: only that prefix is read or
// written. The table below is the one place that knows where each version
// of each struct ends; a new version adds the offset of its first field to
// its struct's row (and its number to the header).
#pragma once

#include <cstddef>
#include <cstring>
#include <iterator>
#include <string>

#include "echomq/echomq.h"
#include "error.hpp"

namespace emqcapi {

// Versions<T>::kEnd[v - 1]: the bytes of version v of T (the current one:
// sizeof(T)).
template <class T>
struct Versions;

#define EMQ_END(T, field) offsetof(T, field)
template <>
struct Versions<echomq_client_options> {
  static constexpr unsigned kCurrent = ECHOMQ_CLIENT_OPTIONS_VERSION;
  static constexpr size_t kEnd[] = {EMQ_END(echomq_client_options, wait_replicas),
                                    EMQ_END(echomq_client_options, tls_ca), sizeof(echomq_client_options)};
};
template <>
struct Versions<echomq_enqueue_options> {
  static constexpr unsigned kCurrent = ECHOMQ_ENQUEUE_OPTIONS_VERSION;
  static constexpr size_t kEnd[] = {EMQ_END(echomq_enqueue_options, idempotency_key),
                                    EMQ_END(echomq_enqueue_options, keep_ms),
                                    EMQ_END(echomq_enqueue_options, cost_estimate),
                                    EMQ_END(echomq_enqueue_options, at_ms), EMQ_END(echomq_enqueue_options, timeout_ms),
                                    EMQ_END(echomq_enqueue_options, name), sizeof(echomq_enqueue_options)};
};
template <>
struct Versions<echomq_worker_options> {
  static constexpr unsigned kCurrent = ECHOMQ_WORKER_OPTIONS_VERSION;
  static constexpr size_t kEnd[] = {EMQ_END(echomq_worker_options, wait_replicas),
                                    EMQ_END(echomq_worker_options, target_wait_ms),
                                    EMQ_END(echomq_worker_options, report_outcomes), sizeof(echomq_worker_options)};
};
template <>
struct Versions<echomq_job_report> {
  static constexpr unsigned kCurrent = ECHOMQ_JOB_REPORT_VERSION;
  static constexpr size_t kEnd[] = {EMQ_END(echomq_job_report, result), EMQ_END(echomq_job_report, result_dropped),
                                    sizeof(echomq_job_report)};
};
template <>
struct Versions<echomq_worker_stats> {
  static constexpr unsigned kCurrent = ECHOMQ_WORKER_STATS_VERSION;
  static constexpr size_t kEnd[] = {EMQ_END(echomq_worker_stats, unconfirmed), EMQ_END(echomq_worker_stats, canceled),
                                    sizeof(echomq_worker_stats)};
};
template <>
struct Versions<echomq_queue_stats> {
  static constexpr unsigned kCurrent = ECHOMQ_QUEUE_STATS_VERSION;
  static constexpr size_t kEnd[] = {EMQ_END(echomq_queue_stats, tenants), EMQ_END(echomq_queue_stats, canceled_total),
                                    sizeof(echomq_queue_stats)};
};
template <>
struct Versions<echomq_outcome_settings> {
  static constexpr unsigned kCurrent = ECHOMQ_OUTCOME_SETTINGS_VERSION;
  static constexpr size_t kEnd[] = {sizeof(echomq_outcome_settings)};
};
template <>
struct Versions<echomq_lane_info> {
  static constexpr unsigned kCurrent = ECHOMQ_LANE_INFO_VERSION;
  static constexpr size_t kEnd[] = {EMQ_END(echomq_lane_info, rate_jobs), EMQ_END(echomq_lane_info, tenant),
                                    EMQ_END(echomq_lane_info, burst), sizeof(echomq_lane_info)};
};
template <>
struct Versions<echomq_lifecycle_settings> {
  static constexpr unsigned kCurrent = ECHOMQ_LIFECYCLE_SETTINGS_VERSION;
  static constexpr size_t kEnd[] = {sizeof(echomq_lifecycle_settings)};
};
template <>
struct Versions<echomq_schedule_options> {
  static constexpr unsigned kCurrent = ECHOMQ_SCHEDULE_OPTIONS_VERSION;
  static constexpr size_t kEnd[] = {sizeof(echomq_schedule_options)};
};
#undef EMQ_END

// The bytes of version v of T; 0 for a version this library does not know.
template <class T>
size_t versionEnd(unsigned v) {
  using V = Versions<T>;
  static_assert(std::size(V::kEnd) == V::kCurrent, "one end per version, the current one last");
  return v >= 1 && v <= V::kCurrent ? V::kEnd[v - 1] : 0;
}

// An ..._init() call: *p gets the defaults d, cut to version v.
template <class T>
int initVersioned(T* p, unsigned v, const T& d) {
  const size_t n = versionEnd<T>(v);
  if (!p || n == 0) return ECHOMQ_EINVAL;
  std::memcpy(static_cast<void*>(p), &d, n);
  p->version = v;
  return ECHOMQ_OK;
}

// A struct the caller passes in: its fields over the defaults d, the fields
// of later versions keeping d's (NULL = d). The result's version is the
// caller's. Throws EINVAL for a version this library does not know.
template <class T>
T readVersioned(const T* p, const T& d, const char* what) {
  T o = d;
  if (!p) return o;
  const size_t n = versionEnd<T>(p->version);
  if (n == 0) echomq::invalid(std::string(what) + ": unknown version " + std::to_string(p->version));
  std::memcpy(static_cast<void*>(&o), p, n);
  return o;
}

// A struct the library fills: checks out and the version the caller set in
// out->version (EINVAL for NULL or an unknown one) before it calls make()
// (the I/O), then writes make()'s whole struct cut to that version (kept).
template <class T, class F>
void writeVersioned(T* out, const char* what, F&& make) {
  if (!out) echomq::invalid(std::string(what) + ": out is NULL");
  const unsigned v = out->version;
  const size_t n = versionEnd<T>(v);
  if (n == 0) echomq::invalid(std::string(what) + ": unknown version " + std::to_string(v) + " in out->version");
  const T r = make();
  std::memcpy(static_cast<void*>(out), &r, n);
  out->version = v;
}

}  // namespace emqcapi
