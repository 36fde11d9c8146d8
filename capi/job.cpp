// echomq/job.h: job handles and job lists (plain data, no I/O).
#include "echomq/job.h"

#include "handles.hpp"

extern "C" {

uint64_t echomq_job_id(const echomq_job* j) { return j ? j->j.id : 0; }
const char* echomq_job_group(const echomq_job* j) { return j ? j->j.group.c_str() : ""; }
const char* echomq_job_payload(const echomq_job* j, size_t* len) {
  if (len) *len = j ? j->j.payload.size() : 0;
  return j ? j->j.payload.c_str() : "";
}
size_t echomq_job_payload_len(const echomq_job* j) { return j ? j->j.payload.size() : 0; }
uint64_t echomq_job_token(const echomq_job* j) { return j ? j->j.token : 0; }
uint32_t echomq_job_max_attempts(const echomq_job* j) { return j ? j->j.max_attempts : 0; }
int64_t echomq_job_lease_until_ms(const echomq_job* j) { return j ? j->j.lease_until_ms : 0; }
int64_t echomq_job_enqueued_at_ms(const echomq_job* j) { return j ? j->j.enqueued_at_ms : 0; }
int64_t echomq_job_dead_at_ms(const echomq_job* j) { return j ? j->j.dead_at_ms : 0; }
const char* echomq_job_last_error(const echomq_job* j) { return j ? j->j.last_error.c_str() : ""; }
int echomq_job_state_of(const echomq_job* j) { return j ? j->j.state : 0; }
uint32_t echomq_job_attempt(const echomq_job* j) { return j ? j->j.attempt() : 0; }
int64_t echomq_job_due_at_ms(const echomq_job* j) { return j ? j->j.due_at_ms : 0; }
int64_t echomq_job_started_at_ms(const echomq_job* j) { return j ? j->j.started_at_ms : 0; }
int64_t echomq_job_finished_at_ms(const echomq_job* j) { return j ? j->j.finished_at_ms : 0; }
const char* echomq_job_progress(const echomq_job* j, size_t* len) {
  if (len) *len = j ? j->j.progress.size() : 0;
  return j ? j->j.progress.c_str() : "";
}
const char* echomq_job_result(const echomq_job* j, size_t* len) {
  if (len) *len = j ? j->j.result.size() : 0;
  return j ? j->j.result.c_str() : "";
}
const char* echomq_job_result_dropped(const echomq_job* j) { return j ? j->j.result_dropped.c_str() : ""; }
const char* echomq_job_name(const echomq_job* j) { return j ? j->j.name.c_str() : ""; }
size_t echomq_job_header_count(const echomq_job* j) { return j ? j->j.headers.size() : 0; }
const char* echomq_job_header_key(const echomq_job* j, size_t i) {
  return j && i < j->j.headers.size() ? j->j.headers[i].first.c_str() : nullptr;
}
const char* echomq_job_header_value(const echomq_job* j, size_t i) {
  return j && i < j->j.headers.size() ? j->j.headers[i].second.c_str() : nullptr;
}
const char* echomq_job_header(const echomq_job* j, const char* key) {
  if (!j || !key) return nullptr;
  for (const auto& h : j->j.headers)
    if (h.first == key) return h.second.c_str();
  return nullptr;
}
void echomq_job_free(echomq_job* j) { delete j; }

size_t echomq_job_list_count(const echomq_job_list* l) { return l ? l->jobs.size() : 0; }
const echomq_job* echomq_job_list_at(const echomq_job_list* l, size_t i) {
  return l && i < l->jobs.size() ? &l->jobs[i] : nullptr;
}
void echomq_job_list_free(echomq_job_list* l) { delete l; }

}  // extern "C"
