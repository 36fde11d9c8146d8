// Definitions of the opaque handles of the C API (C++ inside, C outside).
#pragma once

#include <string>
#include <vector>

#include "router.hpp"
#include "worker.hpp"
#include "echomq/echomq.h"

struct echomq_client {
  explicit echomq_client(const echomq::ClientOptions& o) : core(o) {}
  echomq::Router core;
  std::string errmsg;
  int errcode = ECHOMQ_OK;
};

struct echomq_worker {
  echomq_worker(const char* url, const char* queue, const echomq::WorkerOptions& o) : core(url, queue, o) {}
  echomq::Worker core;
};

struct echomq_job {
  echomq::Job j;
};

struct echomq_job_list {
  std::vector<echomq_job> jobs;
  // A new list owning `from`'s jobs.
  static echomq_job_list* of(std::vector<echomq::Job>&& from) {
    auto* l = new echomq_job_list();
    l->jobs.reserve(from.size());
    for (auto& j : from) l->jobs.push_back(echomq_job{std::move(j)});
    return l;
  }
};

struct echomq_batch {
  std::vector<std::string> groups;
  std::vector<std::string> payloads;
  std::vector<std::string> keys;  // idempotency keys ("" = none)
  std::vector<std::string> metas; // own name and headers, stored form ("" = the call's)
  bool keyed = false;             // any entry has a key
  bool named = false;             // any entry has a name or headers
  std::vector<uint64_t> ids;
  std::vector<bool> duplicate;    // after a keyed enqueue
};

struct echomq_settle {
  std::vector<echomq::Settlement> entries;
  std::vector<int> codes;  // after a call
};

struct echomq_lane_list {
  std::vector<echomq_lane_info> lanes;
  std::string next;
  bool has_next = false;
};

struct echomq_event_list {
  std::vector<std::vector<std::string>> entries;  // each: stream id, then field, value pairs
};

struct echomq_report {
  std::vector<std::string> lines;
  std::string cursor;  // echomq_repair: the next step's cursor, "" when done
};
