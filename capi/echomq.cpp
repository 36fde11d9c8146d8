// The extern "C" boundary: every body catches everything and turns it into
// a status plus the handle's message. No exception crosses it.
#include "echomq/echomq.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>

#include "error.hpp"
#include "guard.hpp"
#include "handles.hpp"
#include "mapping.hpp"
#include "tls.hpp"
#include "versioned.hpp"
#include "validate.hpp"

namespace {

#define STR2(x) #x
#define STR(x) STR2(x)

using emqcapi::guarded;

template <class F>
int guardedNoClient(F&& fn) {
  return emqcapi::guard([&] {
    fn();
    return static_cast<int>(ECHOMQ_OK);
  });
}

void requireOut(const void* p, const char* name) {
  if (!p) echomq::invalid(std::string(name) + " is NULL");
}

// Copies a core claim result into a new job handle (or NULL when empty).
int takeOne(echomq::ClaimResult& r, echomq_job** out) {
  if (r.empty || r.jobs.empty()) return ECHOMQ_EMPTY;
  *out = new echomq_job{std::move(r.jobs.front())};
  return ECHOMQ_OK;
}

// Moves a core claim result into a new list handle (or NULL when empty).
int takeList(echomq::ClaimResult& r, echomq_job_list** out) {
  if (r.empty || r.jobs.empty()) return ECHOMQ_EMPTY;
  auto* l = new echomq_job_list();
  l->jobs.reserve(r.jobs.size());
  for (auto& j : r.jobs) l->jobs.push_back(echomq_job{std::move(j)});
  *out = l;
  return ECHOMQ_OK;
}

// A claim-like call: OK with a job, or EMPTY, recorded on c.
template <class F>
int claimLike(echomq_client* c, echomq_job** out, F&& fn) {
  if (out) *out = nullptr;
  int st = ECHOMQ_OK;
  int rc = guarded(c, [&] {
    requireOut(out, "out");
    echomq::ClaimResult r = fn();
    st = takeOne(r, out);
  });
  return rc == ECHOMQ_OK ? st : rc;
}

}  // namespace

extern "C" {

const char* echomq_strerror(int status) {
  switch (status) {
    case ECHOMQ_OK: return "ok";
    case ECHOMQ_EMPTY: return "nothing to claim";
    case ECHOMQ_UNCONFIRMED: return "done, but not confirmed durable in time";
    case ECHOMQ_DUPLICATE: return "duplicate: the first job's id is returned";
    case ECHOMQ_PENDING: return "not finished when the wait ran out";
    case ECHOMQ_EINVAL: return "invalid argument";
    case ECHOMQ_ETOOLARGE: return "too large";
    case ECHOMQ_ENOTFOUND: return "not found";
    case ECHOMQ_ESTALE: return "stale lease";
    case ECHOMQ_ELAYOUT: return "queue written with another key layout";
    case ECHOMQ_EFULL: return "lane is full";
    case ECHOMQ_ELEASED: return "job is leased by a worker";
    case ECHOMQ_ESHARDS: return "shard count mismatch, or a plain queue in use";
    case ECHOMQ_ECONN: return "connection error";
    case ECHOMQ_ETIMEOUT: return "timeout (outcome unknown)";
    case ECHOMQ_ECANCELED: return "canceled";
    case ECHOMQ_ETLS: return "TLS refused (handshake, certificate or name)";
    case ECHOMQ_ESERVER: return "server error";
    case ECHOMQ_ENOPERM: return "no permission";
    case ECHOMQ_EPROTO: return "protocol error";
    case ECHOMQ_EBUSY: return "server busy running a script (retryable)";
    case ECHOMQ_ELOADING: return "server loading its dataset (retryable)";
    case ECHOMQ_ETRYAGAIN: return "cluster slot in migration (retryable)";
    case ECHOMQ_EOOM: return "server out of memory: nothing was written (retryable)";
    case ECHOMQ_ENOMEM: return "out of memory";
    case ECHOMQ_EINTERNAL: return "internal error";
    default: return "unknown status";
  }
}

unsigned int echomq_version(void) { return ECHOMQ_VERSION_NUMBER; }

const char* echomq_version_string(void) {
  return STR(ECHOMQ_VERSION_MAJOR) "." STR(ECHOMQ_VERSION_MINOR) "." STR(ECHOMQ_VERSION_PATCH);
}

int echomq_check_queue_name(const char* queue) {
  return guardedNoClient([&] { echomq::checkQueueName(queue); });
}

int echomq_check_group_name(const char* group) {
  return guardedNoClient([&] { echomq::checkGroupName(group); });
}

/* ---- client ---- */

int echomq_client_options_init(echomq_client_options* opts, unsigned int version) {
  // A version-1 struct ends before the wait_* fields, a version-2 one
  // before the tls_* fields.
  if (opts && version == ECHOMQ_CLIENT_OPTIONS_VERSION_2) {
    const echomq_client_options d = ECHOMQ_CLIENT_OPTIONS_INIT;
    std::memcpy(static_cast<void*>(opts), &d, offsetof(echomq_client_options, tls_ca));
    opts->version = version;
    return ECHOMQ_OK;
  }
  return emqcapi::initOptions(opts, version, echomq_client_options ECHOMQ_CLIENT_OPTIONS_INIT,
                              ECHOMQ_CLIENT_OPTIONS_VERSION_1, offsetof(echomq_client_options, wait_replicas));
}

int echomq_client_new(echomq_client** out, const echomq_client_options* opts) {
  if (!out) return ECHOMQ_EINVAL;
  *out = nullptr;
  echomq::ClientOptions o;
  if (opts) {
    if (opts->version != ECHOMQ_CLIENT_OPTIONS_VERSION && opts->version != ECHOMQ_CLIENT_OPTIONS_VERSION_2 &&
        opts->version != ECHOMQ_CLIENT_OPTIONS_VERSION_1)
      return ECHOMQ_EINVAL;
    if (opts->connect_timeout_ms < 1 || opts->command_timeout_ms < 1) return ECHOMQ_EINVAL;
    if (opts->max_payload_bytes < 1 || opts->max_payload_bytes > ECHOMQ_HARD_MAX_PAYLOAD)
      return ECHOMQ_EINVAL;
    o.timeouts.connect_ms = opts->connect_timeout_ms;
    o.timeouts.command_ms = opts->command_timeout_ms;
    o.max_payload = opts->max_payload_bytes;
    if (opts->version >= 2) {  // the wait_* fields exist
      if (!echomq::Durability::valid(opts->wait_replicas, opts->wait_aof, opts->wait_timeout_ms))
        return ECHOMQ_EINVAL;
      o.durability.replicas = opts->wait_replicas;
      o.durability.aof = opts->wait_aof != 0;
      o.durability.timeout_ms = opts->wait_timeout_ms;
    }
    if (opts->version >= 3) {  // the tls_* fields exist
      auto str = [](const char* p) { return p ? std::string(p) : std::string(); };
      o.tls.ca = str(opts->tls_ca);
      o.tls.cert = str(opts->tls_cert);
      o.tls.key = str(opts->tls_key);
      o.tls.sni = str(opts->tls_sni);
      if (opts->tls_insecure_skip_verify != 0 && opts->tls_insecure_skip_verify != 1) return ECHOMQ_EINVAL;
      o.tls.verify = opts->tls_insecure_skip_verify == 0;
    }
  }
  return guardedNoClient([&] {
    // The files are read now, so a missing one is EINVAL here and not at
    // connect (the URL may still override them, and is checked then).
    if (echomq::anyTls(o.tls)) {
      echomq::TlsSettings t = o.tls;
      t.on = true;
      echomq::tlsContext(t);
    }
    *out = new echomq_client(o);
  });
}

echomq_client* echomq_client_create(const echomq_client_options* opts) {
  echomq_client* c = nullptr;
  return echomq_client_new(&c, opts) == ECHOMQ_OK ? c : nullptr;
}

int echomq_client_connect(echomq_client* c, const char* url) {
  return guarded(c, [&] {
    if (!url) echomq::invalid("URL is NULL");
    c->core.connect(url);
  });
}

void echomq_client_free(echomq_client* c) { delete c; }

const char* echomq_client_errmsg(const echomq_client* c) {
  return c ? c->errmsg.c_str() : "no client handle";
}

int echomq_client_errcode(const echomq_client* c) { return c ? c->errcode : ECHOMQ_EINVAL; }

int echomq_client_connected(const echomq_client* c) { return c && c->core.connected() ? 1 : 0; }

void echomq_client_cancel(echomq_client* c) {
  if (!c) return;
  try {
    c->core.cancel();
  } catch (...) {
  }
}

int echomq_client_ping(echomq_client* c) {
  return guarded(c, [&] { c->core.ping(); });
}

/* ---- jobs ---- */

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
void echomq_job_free(echomq_job* j) { delete j; }

size_t echomq_job_list_count(const echomq_job_list* l) { return l ? l->jobs.size() : 0; }
const echomq_job* echomq_job_list_at(const echomq_job_list* l, size_t i) {
  return l && i < l->jobs.size() ? &l->jobs[i] : nullptr;
}
void echomq_job_list_free(echomq_job_list* l) { delete l; }

/* ---- enqueue ---- */

int echomq_enqueue_options_init(echomq_enqueue_options* opts, unsigned int version) {
  if (!opts || version < ECHOMQ_ENQUEUE_OPTIONS_VERSION_1 || version > ECHOMQ_ENQUEUE_OPTIONS_VERSION)
    return ECHOMQ_EINVAL;
  const echomq_enqueue_options d = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  // An older caller's struct ends after its version's last field: only that
  // prefix is written (version 1: max_attempts; 2: dedup_window_ms; 3:
  // keep_last; 4: cost_estimate).
  size_t n = sizeof d;
  if (version == ECHOMQ_ENQUEUE_OPTIONS_VERSION_1) n = offsetof(echomq_enqueue_options, idempotency_key);
  if (version == ECHOMQ_ENQUEUE_OPTIONS_VERSION_2) n = offsetof(echomq_enqueue_options, keep_ms);
  if (version == ECHOMQ_ENQUEUE_OPTIONS_VERSION_3) n = offsetof(echomq_enqueue_options, cost_estimate);
  if (version == ECHOMQ_ENQUEUE_OPTIONS_VERSION_4) n = offsetof(echomq_enqueue_options, at_ms);
  std::memcpy(opts, &d, n);
  opts->version = version;
  return ECHOMQ_OK;
}

namespace {
// The fields of the caller's version only: a version-1 struct is shorter.
struct EnqueueOpts {
  int64_t delay = 0;
  uint32_t maxatt = 0;
  const char* key = nullptr;
  int64_t window = 0;
  int64_t keep_ms = 0;
  uint64_t keep_last = 0;
  uint64_t estimate = 0;
  int64_t at = 0;
};
EnqueueOpts readEnqueueOptions(const echomq_enqueue_options* opts) {
  EnqueueOpts o;
  if (!opts) return o;
  if (opts->version < ECHOMQ_ENQUEUE_OPTIONS_VERSION_1 || opts->version > ECHOMQ_ENQUEUE_OPTIONS_VERSION)
    echomq::invalid("enqueue options: unknown version " + std::to_string(opts->version));
  o.delay = opts->delay_ms;
  o.maxatt = opts->max_attempts;
  if (opts->version >= 2) {
    o.key = opts->idempotency_key;
    o.window = opts->dedup_window_ms;
    if (o.key && !*o.key) echomq::invalid("idempotency key is empty (NULL means none)");
    if (o.key && std::strlen(o.key) > ECHOMQ_DEDUP_KEY_MAX)
      echomq::invalid("idempotency key is longer than " + std::to_string(ECHOMQ_DEDUP_KEY_MAX) + " bytes");
  }
  if (opts->version >= 3) {
    o.keep_ms = opts->keep_ms;
    o.keep_last = opts->keep_last;
    echomq::checkKeep(o.keep_ms, o.keep_last);
  }
  if (opts->version >= 4) {
    o.estimate = opts->cost_estimate;
    echomq::checkEstimate(o.estimate);
  }
  if (opts->version >= 5) {
    o.at = opts->at_ms;
    echomq::checkRange("at_ms", o.at, 0, ECHOMQ_ID_MAX);
    if (o.at > 0 && o.delay > 0) echomq::invalid("delay_ms and at_ms exclude each other");
  }
  return o;
}
}  // namespace

int echomq_enqueue(echomq_client* c, const char* queue, const char* group, const char* payload,
                   size_t payload_len, const echomq_enqueue_options* opts, uint64_t* id_out) {
  bool dup = false;
  int rc = guarded(c, [&] {
    EnqueueOpts o = readEnqueueOptions(opts);
    if (!group) echomq::invalid("group name is NULL");
    std::vector<echomq::NewJob> one{{group, std::strlen(group), payload, payload_len}};
    if (!o.key) {
      auto ids = c->core.enqueue(queue, one, o.delay, o.maxatt, o.keep_ms, o.keep_last, o.estimate, o.at);
      if (id_out) *id_out = ids.front();
      return;
    }
    one[0].key = o.key;
    one[0].key_len = std::strlen(o.key);
    auto r = c->core.enqueueKeyed(queue, one, o.delay, o.maxatt, o.window, o.keep_ms, o.keep_last, o.estimate, o.at);
    if (id_out) *id_out = r.ids.front();
    dup = r.duplicate.front();
  });
  return rc == ECHOMQ_OK && dup ? ECHOMQ_DUPLICATE : rc;
}

int echomq_batch_new(echomq_batch** out) {
  if (!out) return ECHOMQ_EINVAL;
  *out = new (std::nothrow) echomq_batch();
  return *out ? ECHOMQ_OK : ECHOMQ_ENOMEM;
}

echomq_batch* echomq_batch_create(void) { return new (std::nothrow) echomq_batch(); }

int echomq_batch_add(echomq_batch* b, const char* group, const char* payload, size_t payload_len) {
  return echomq_batch_add_keyed(b, group, payload, payload_len, nullptr);
}

int echomq_batch_add_keyed(echomq_batch* b, const char* group, const char* payload,
                           size_t payload_len, const char* key) {
  if (!b) return ECHOMQ_EINVAL;
  return guardedNoClient([&] {
    echomq::checkLaneName(group);
    if (key && std::strlen(key) > ECHOMQ_DEDUP_KEY_MAX)
      echomq::invalid("idempotency key is longer than " + std::to_string(ECHOMQ_DEDUP_KEY_MAX) + " bytes");
    if (payload_len > 0 && !payload) echomq::invalid("payload is NULL with a non-zero length");
    if (payload_len > ECHOMQ_HARD_MAX_PAYLOAD) echomq::fail(ECHOMQ_ETOOLARGE, "payload too large");
    if (b->groups.size() >= ECHOMQ_BATCH_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "batch is full");
    b->groups.emplace_back(group);
    try {
      b->payloads.emplace_back(payload ? payload : "", payload_len);
      try {
        b->keys.emplace_back(key ? key : "");
      } catch (...) {
        b->payloads.pop_back();
        throw;
      }
    } catch (...) {
      b->groups.pop_back();
      throw;
    }
    if (key && *key) b->keyed = true;
    b->ids.clear();
    b->duplicate.clear();
  });
}

size_t echomq_batch_count(const echomq_batch* b) { return b ? b->groups.size() : 0; }
uint64_t echomq_batch_id(const echomq_batch* b, size_t i) {
  return b && i < b->ids.size() ? b->ids[i] : 0;
}
int echomq_batch_duplicate(const echomq_batch* b, size_t i) {
  return b && i < b->duplicate.size() && b->duplicate[i] ? 1 : 0;
}
void echomq_batch_clear(echomq_batch* b) {
  if (!b) return;
  b->groups.clear();
  b->payloads.clear();
  b->keys.clear();
  b->keyed = false;
  b->ids.clear();
  b->duplicate.clear();
}
void echomq_batch_free(echomq_batch* b) { delete b; }

int echomq_enqueue_batch(echomq_client* c, const char* queue, echomq_batch* b,
                         const echomq_enqueue_options* opts) {
  return guarded(c, [&] {
    if (!b) echomq::invalid("batch is NULL");
    EnqueueOpts o = readEnqueueOptions(opts);
    if (o.key) echomq::invalid("a batch takes its idempotency keys per job (echomq_batch_add_keyed)");
    std::vector<echomq::NewJob> jobs;
    jobs.reserve(b->groups.size());
    for (size_t i = 0; i < b->groups.size(); ++i)
      jobs.push_back({b->groups[i].data(), b->groups[i].size(), b->payloads[i].data(),
                      b->payloads[i].size(), b->keys[i].data(), b->keys[i].size()});
    b->duplicate.clear();
    if (!b->keyed) {
      b->ids = c->core.enqueue(queue, jobs, o.delay, o.maxatt, o.keep_ms, o.keep_last, o.estimate, o.at);
      return;
    }
    auto r = c->core.enqueueKeyed(queue, jobs, o.delay, o.maxatt, o.window, o.keep_ms, o.keep_last, o.estimate, o.at);
    b->ids = std::move(r.ids);
    b->duplicate = std::move(r.duplicate);
  });
}

/* ---- claim ---- */

int echomq_claim(echomq_client* c, const char* queue, int64_t lease_ms, echomq_job** out) {
  return claimLike(c, out, [&] { return c->core.claim(queue, lease_ms, 1, false); });
}

int echomq_wclaim(echomq_client* c, const char* queue, int64_t lease_ms, uint32_t max,
                  echomq_job_list** out) {
  if (out) *out = nullptr;
  int st = ECHOMQ_OK;
  int rc = guarded(c, [&] {
    requireOut(out, "out");
    echomq::ClaimResult r = c->core.claim(queue, lease_ms, max, true);
    st = takeList(r, out);
  });
  return rc == ECHOMQ_OK ? st : rc;
}

int echomq_bclaim(echomq_client* c, const char* queue, int64_t lease_ms, int64_t timeout_ms,
                  echomq_job** out) {
  return claimLike(c, out, [&] { return c->core.bclaim(queue, lease_ms, timeout_ms); });
}

/* ---- settle ---- */

int echomq_ack(echomq_client* c, const char* queue, uint64_t id, uint64_t token) {
  return guarded(c, [&] { c->core.ack(queue, id, token); });
}

int echomq_ack_result(echomq_client* c, const char* queue, uint64_t id, uint64_t token,
                      const char* result, size_t result_len) {
  return guarded(c, [&] {
    if (result_len > 0 && !result) echomq::invalid("result is NULL with a non-zero length");
    if (result_len > ECHOMQ_RESULT_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "result is over ECHOMQ_RESULT_MAX");
    echomq::Settlement s{id, token, true, 0, {}, {}};
    s.result.assign(result ? result : "", result_len);
    std::vector<echomq::Settlement> one{std::move(s)};
    echomq::TakeResult r = c->core.settleClaim(queue, one, 0, 0, false);
    int code = r.codes.at(0);
    if (code == ECHOMQ_ENOTFOUND) echomq::fail(code, "ack: job " + std::to_string(id) + " not found");
    if (code == ECHOMQ_ESTALE)
      echomq::fail(code, "ack: job " + std::to_string(id) + " is not leased with token " + std::to_string(token) +
                             " (its lease was lost)");
  });
}

int echomq_ack_many(echomq_client* c, const char* queue, const uint64_t* ids,
                    const uint64_t* tokens, size_t n, int* statuses, size_t* acked) {
  return guarded(c, [&] {
    size_t m = c->core.ackMany(queue, ids, tokens, n, statuses);
    if (acked) *acked = m;
  });
}

int echomq_ack_claim(echomq_client* c, const char* queue, uint64_t id, uint64_t token,
                     int64_t lease_ms, echomq_job** next) {
  return claimLike(c, next, [&] { return c->core.ackClaim(queue, id, token, lease_ms); });
}

int echomq_fail(echomq_client* c, const char* queue, uint64_t id, uint64_t token,
                const char* reason, int64_t retry_delay_ms, int* outcome) {
  return guarded(c, [&] {
    int o = c->core.fail(queue, id, token, reason, retry_delay_ms);
    if (outcome) *outcome = o;
  });
}

int echomq_extend(echomq_client* c, const char* queue, uint64_t id, uint64_t token,
                  int64_t lease_ms, int64_t* lease_until_ms) {
  return guarded(c, [&] {
    int64_t d = c->core.extend(queue, id, token, lease_ms);
    if (lease_until_ms) *lease_until_ms = d;
  });
}

/* ---- batches ---- */

namespace {

int settleAdd(echomq_settle* s, echomq::Settlement e) {
  if (!s) return ECHOMQ_EINVAL;
  return guardedNoClient([&] {
    echomq::checkSettlement(e);
    if (s->entries.size() >= ECHOMQ_BATCH_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "settlement list is full");
    s->entries.push_back(std::move(e));
    s->codes.clear();
  });
}
}  // namespace

int echomq_claim_batch(echomq_client* c, const char* queue, int64_t lease_ms, uint32_t n,
                       int weighted, echomq_job_list** out) {
  if (out) *out = nullptr;
  int st = ECHOMQ_OK;
  int rc = guarded(c, [&] {
    requireOut(out, "out");
    if (n > ECHOMQ_BATCH_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "n is over ECHOMQ_BATCH_MAX");
    echomq::ClaimResult r = c->core.claimBatch(queue, lease_ms, n, weighted != 0);
    st = takeList(r, out);
  });
  return rc == ECHOMQ_OK ? st : rc;
}

int echomq_settle_new(echomq_settle** out) {
  if (!out) return ECHOMQ_EINVAL;
  *out = new (std::nothrow) echomq_settle();
  return *out ? ECHOMQ_OK : ECHOMQ_ENOMEM;
}
echomq_settle* echomq_settle_create(void) { return new (std::nothrow) echomq_settle(); }
int echomq_settle_ack(echomq_settle* s, uint64_t id, uint64_t token) {
  return settleAdd(s, echomq::Settlement{id, token, true, 0, {}, {}});
}
int echomq_settle_ack_result(echomq_settle* s, uint64_t id, uint64_t token, const char* result,
                             size_t result_len) {
  if (result_len > 0 && !result) return ECHOMQ_EINVAL;
  if (result_len > ECHOMQ_RESULT_MAX) return ECHOMQ_ETOOLARGE;
  try {
    echomq::Settlement e{id, token, true, 0, {}, {}};
    e.result.assign(result ? result : "", result_len);
    return settleAdd(s, std::move(e));
  } catch (...) {
    return ECHOMQ_ENOMEM;
  }
}
int echomq_settle_fail(echomq_settle* s, uint64_t id, uint64_t token, const char* reason,
                       int64_t retry_delay_ms) {
  size_t rlen = reason ? std::strlen(reason) : 0;
  if (rlen > ECHOMQ_REASON_MAX) rlen = ECHOMQ_REASON_MAX;
  try {
    return settleAdd(s, echomq::Settlement{id, token, false, retry_delay_ms,
                                           std::string(reason ? reason : "", rlen), {}});
  } catch (...) {
    return ECHOMQ_ENOMEM;
  }
}
int echomq_settle_ack_cost(echomq_settle* s, uint64_t id, uint64_t token, const char* group, uint64_t cost) {
  if (!group) return ECHOMQ_EINVAL;
  try {
    echomq::Settlement e{id, token, true, 0, {}, {}};
    e.lane = group;
    e.cost = cost;
    return settleAdd(s, std::move(e));
  } catch (...) {
    return ECHOMQ_ENOMEM;
  }
}
size_t echomq_settle_count(const echomq_settle* s) { return s ? s->entries.size() : 0; }
int echomq_settle_status(const echomq_settle* s, size_t i) {
  return s && i < s->codes.size() ? s->codes[i] : ECHOMQ_EINVAL;
}
void echomq_settle_clear(echomq_settle* s) {
  if (!s) return;
  s->entries.clear();
  s->codes.clear();
}
void echomq_settle_free(echomq_settle* s) { delete s; }

int echomq_settle_claim(echomq_client* c, const char* queue, echomq_settle* s, int64_t lease_ms,
                        uint32_t n, int weighted, echomq_job_list** out) {
  if (out) *out = nullptr;
  int st = ECHOMQ_OK;
  int rc = guarded(c, [&] {
    if (n > 0) requireOut(out, "out");
    if (n > ECHOMQ_BATCH_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "n is over ECHOMQ_BATCH_MAX");
    static const std::vector<echomq::Settlement> kNone;
    if (s) s->codes.clear();
    echomq::TakeResult r = c->core.settleClaim(queue, s ? s->entries : kNone, lease_ms, n, weighted != 0);
    if (s) s->codes = std::move(r.codes);
    if (n > 0) st = takeList(r.claimed, out);
  });
  return rc == ECHOMQ_OK ? st : rc;
}

int echomq_extend_many(echomq_client* c, const char* queue, const uint64_t* ids,
                       const uint64_t* tokens, size_t n, int64_t lease_ms, int* statuses,
                       int64_t* lease_until_ms) {
  return guarded(c, [&] {
    int64_t d = c->core.extendMany(queue, ids, tokens, n, lease_ms, statuses);
    if (lease_until_ms) *lease_until_ms = d;
  });
}

/* ---- lane control ---- */

int echomq_set_weight(echomq_client* c, const char* queue, const char* group, uint32_t weight) {
  return guarded(c, [&] {
    if (weight < 1) echomq::invalid("weight must be >= 1 (use echomq_clear_weight to reset)");
    c->core.setWeight(queue, group, weight);
  });
}
int echomq_clear_weight(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] { c->core.setWeight(queue, group, 0); });
}
int echomq_set_limit(echomq_client* c, const char* queue, const char* group, uint32_t limit) {
  return guarded(c, [&] {
    if (limit < 1) echomq::invalid("limit must be >= 1 (use echomq_clear_limit to remove it)");
    c->core.setLimit(queue, group, limit);
  });
}
int echomq_clear_limit(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] { c->core.setLimit(queue, group, 0); });
}
int echomq_pause(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] { c->core.setPaused(queue, group, true); });
}
int echomq_resume(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] { c->core.setPaused(queue, group, false); });
}
int echomq_set_default_weight(echomq_client* c, const char* queue, uint32_t weight) {
  return guarded(c, [&] {
    c->core.setDefault(queue, echomq::QueueDefault::Weight, weight);
  });
}
int echomq_set_default_limit(echomq_client* c, const char* queue, uint32_t limit) {
  return guarded(c, [&] {
    c->core.setDefault(queue, echomq::QueueDefault::Limit, limit);
  });
}
int echomq_set_default_max_attempts(echomq_client* c, const char* queue, uint32_t max_attempts) {
  return guarded(c, [&] {
    c->core.setDefault(queue, echomq::QueueDefault::MaxAttempts, max_attempts);
  });
}

int echomq_set_rate(echomq_client* c, const char* queue, const char* group, uint32_t jobs,
                    int64_t period_ms, uint32_t burst) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    if (jobs < 1) echomq::invalid("rate jobs must be >= 1 (use echomq_clear_rate to remove it)");
    c->core.setRate(queue, group, jobs, period_ms, burst);
  });
}
int echomq_clear_rate(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    c->core.setRate(queue, group, 0, 1, 0);
  });
}
int echomq_set_default_rate(echomq_client* c, const char* queue, uint32_t jobs, int64_t period_ms,
                            uint32_t burst) {
  return guarded(c, [&] { c->core.setRate(queue, nullptr, jobs, jobs ? period_ms : 1, burst); });
}
int echomq_set_cost_mode(echomq_client* c, const char* queue, uint64_t quantum) {
  return guarded(c, [&] {
    if (quantum > static_cast<uint64_t>(ECHOMQ_ID_MAX)) echomq::invalid("quantum must be 0..ECHOMQ_ID_MAX");
    c->core.costMode(queue, static_cast<int64_t>(quantum));
  });
}
int echomq_get_cost_mode(echomq_client* c, const char* queue, uint64_t* quantum) {
  return guarded(c, [&] {
    if (!quantum) echomq::invalid("quantum is NULL");
    *quantum = c->core.costMode(queue, -1);
  });
}
int echomq_set_wait_figures(echomq_client* c, const char* queue, uint32_t window_s) {
  return guarded(c, [&] {
    if (window_s > ECHOMQ_WAIT_WINDOW_MAX_S) echomq::invalid("window must be 0..ECHOMQ_WAIT_WINDOW_MAX_S s");
    c->core.waitFigures(queue, static_cast<int64_t>(window_s));
  });
}
int echomq_get_wait_figures(echomq_client* c, const char* queue, uint32_t* window_s) {
  return guarded(c, [&] {
    if (!window_s) echomq::invalid("window_s is NULL");
    *window_s = static_cast<uint32_t>(c->core.waitFigures(queue, -1));
  });
}
int echomq_charge(echomq_client* c, const char* queue, const char* group, uint64_t cost) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    if (cost > static_cast<uint64_t>(ECHOMQ_ID_MAX)) echomq::invalid("cost must be 0..ECHOMQ_ID_MAX");
    c->core.charge(queue, group, cost);
  });
}
int echomq_throttle(echomq_client* c, const char* queue, const char* group, int64_t ms) {
  return guarded(c, [&] { c->core.throttle(queue, group, ms); });
}
int echomq_set_cap(echomq_client* c, const char* queue, const char* group, uint64_t cap) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    if (cap < 1) echomq::invalid("cap must be >= 1 (use echomq_clear_cap to remove it)");
    c->core.setCap(queue, group, cap);
  });
}
int echomq_clear_cap(echomq_client* c, const char* queue, const char* group) {
  return guarded(c, [&] {
    if (!group) echomq::invalid("group name is NULL");
    c->core.setCap(queue, group, 0);
  });
}
int echomq_set_default_cap(echomq_client* c, const char* queue, uint64_t cap) {
  return guarded(c, [&] { c->core.setCap(queue, nullptr, cap); });
}

/* ---- inspection ---- */

int echomq_stats(echomq_client* c, const char* queue, echomq_queue_stats* out) {
  return guarded(c, [&] {
    requireOut(out, "out");
    if (out->version != ECHOMQ_QUEUE_STATS_VERSION)
      echomq::invalid("stats: set out->version to ECHOMQ_QUEUE_STATS_VERSION");
    *out = emqcapi::toC(c->core.stats(queue));
  });
}

int echomq_lane(echomq_client* c, const char* queue, const char* group, echomq_lane_info* out) {
  return guarded(c, [&] {
    requireOut(out, "out");
    const unsigned v = out->version;
    if (v != ECHOMQ_LANE_INFO_VERSION && v != ECHOMQ_LANE_INFO_VERSION_2 && v != ECHOMQ_LANE_INFO_VERSION_1)
      echomq::invalid("lane: set out->version to ECHOMQ_LANE_INFO_VERSION");
    echomq_lane_info l = emqcapi::toC(c->core.lane(queue, group));
    // An older caller's struct ends before the fields of later versions.
    const size_t n = v == ECHOMQ_LANE_INFO_VERSION   ? sizeof l
                     : v == ECHOMQ_LANE_INFO_VERSION_2 ? offsetof(echomq_lane_info, tenant)
                                                       : offsetof(echomq_lane_info, rate_jobs);
    std::memcpy(out, &l, n);
    out->version = v;
  });
}

size_t echomq_lane_list_count(const echomq_lane_list* l) { return l ? l->lanes.size() : 0; }
const echomq_lane_info* echomq_lane_list_at(const echomq_lane_list* l, size_t i) {
  return l && i < l->lanes.size() ? &l->lanes[i] : nullptr;
}
const char* echomq_lane_list_next(const echomq_lane_list* l) {
  return l && l->has_next ? l->next.c_str() : nullptr;
}
void echomq_lane_list_free(echomq_lane_list* l) { delete l; }

int echomq_lanes(echomq_client* c, const char* queue, const char* after, size_t count,
                 echomq_lane_list** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    auto* l = new echomq_lane_list();
    try {
      bool more = false;
      for (const echomq::LaneInfo& x : c->core.lanes(queue, after, count, more))
        l->lanes.push_back(emqcapi::toC(x));
      l->has_next = more && !l->lanes.empty();
      if (l->has_next) l->next = l->lanes.back().group;
    } catch (...) {
      delete l;
      throw;
    }
    *out = l;
  });
}

int echomq_dead(echomq_client* c, const char* queue, uint64_t offset, size_t count,
                echomq_job_list** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    auto jobs = c->core.dead(queue, offset, count);
    auto* l = new echomq_job_list();
    l->jobs.reserve(jobs.size());
    for (auto& j : jobs) l->jobs.push_back(echomq_job{std::move(j)});
    *out = l;
  });
}

int echomq_redrive(echomq_client* c, const char* queue, const uint64_t* ids, size_t n,
                   uint64_t* redriven) {
  return guarded(c, [&] {
    uint64_t m = c->core.redrive(queue, ids, n);
    if (redriven) *redriven = m;
  });
}

int echomq_redrive_all(echomq_client* c, const char* queue, uint64_t* redriven) {
  return guarded(c, [&] {
    uint64_t m = c->core.redriveAll(queue);
    if (redriven) *redriven = m;
  });
}

size_t echomq_report_count(const echomq_report* r) { return r ? r->lines.size() : 0; }
const char* echomq_report_at(const echomq_report* r, size_t i) {
  return r && i < r->lines.size() ? r->lines[i].c_str() : nullptr;
}
void echomq_report_free(echomq_report* r) { delete r; }

int echomq_verify(echomq_client* c, const char* queue, echomq_report** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    auto lines = c->core.verify(queue);
    *out = new echomq_report{std::move(lines), {}};
  });
}

int echomq_repair(echomq_client* c, const char* queue, int apply, const char* cursor,
                  size_t count, echomq_report** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    std::string from = cursor ? cursor : "";
    // A cursor is "<phase> <position> <count> <hex>:<n>:<n> ...".
    for (char ch : from)
      if (!(ch == ' ' || ch == ':' || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
            (ch >= 'A' && ch <= 'Z')))
        echomq::invalid("cursor is not one a repair returned");
    auto r = std::make_unique<echomq_report>();
    r->cursor = c->core.repair(queue, apply != 0, from, count, r->lines);
    *out = r.release();
  });
}

const char* echomq_report_cursor(const echomq_report* r) {
  return r && !r->cursor.empty() ? r->cursor.c_str() : nullptr;
}

int echomq_doctor(echomq_client* c, const char* queue, const char* acl_user, echomq_report** out,
                  int* worst) {
  if (out) *out = nullptr;
  if (worst) *worst = ECHOMQ_DOCTOR_OK;
  return guarded(c, [&] {
    requireOut(out, "out");
    static const char* const kLevel[] = {"ok", "warn", "fail"};
    int w = ECHOMQ_DOCTOR_OK;
    std::vector<std::string> lines;
    for (auto& l : c->core.doctor(queue, acl_user)) {
      w = l.level > w ? l.level : w;
      lines.push_back(std::string(kLevel[l.level]) + " " + l.text);
    }
    *out = new echomq_report{std::move(lines), {}};
    if (worst) *worst = w;
  });
}

}  // extern "C"

/* ---- everyday operations ---- */

int echomq_get_job(echomq_client* c, const char* queue, uint64_t id, echomq_job** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    *out = new echomq_job{c->core.getJob(queue, id)};
  });
}

int echomq_delete_job(echomq_client* c, const char* queue, uint64_t id) {
  return guarded(c, [&] { c->core.deleteJob(queue, id); });
}

int echomq_purge_lane(echomq_client* c, const char* queue, const char* group, uint32_t max,
                      int clear_settings, uint64_t* cursor, uint64_t* removed, int* more) {
  return guarded(c, [&] {
    requireOut(cursor, "cursor");
    uint64_t cur = *cursor;
    bool m = false;
    uint64_t n = c->core.purgeLane(queue, group, max, clear_settings != 0, cur, m);
    *cursor = m ? cur : 0;
    if (removed) *removed = n;
    if (more) *more = m ? 1 : 0;
  });
}

int echomq_purge_lane_all(echomq_client* c, const char* queue, const char* group,
                          int clear_settings, uint64_t* removed) {
  return guarded(c, [&] {
    uint64_t cur = 0, total = 0;
    bool m = true;
    while (m) total += c->core.purgeLane(queue, group, ECHOMQ_PURGE_MAX, clear_settings != 0, cur, m);
    if (removed) *removed = total;
  });
}

int echomq_shards_create(echomq_client* c, const char* queue, uint32_t shards) {
  return guarded(c, [&] { c->core.createShards(queue, shards); });
}

int echomq_shards(echomq_client* c, const char* queue, echomq_report** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    auto* r = new echomq_report();
    r->lines = c->core.shardNames(queue);
    *out = r;
  });
}

int echomq_queues(echomq_client* c, echomq_report** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    auto* r = new echomq_report();
    r->lines = c->core.queues();
    *out = r;
  });
}

/* ---- outcomes ---- */

int echomq_set_retention(echomq_client* c, const char* queue, int64_t keep_ms, uint64_t keep_last) {
  return guarded(c, [&] { c->core.setRetention(queue, keep_ms, keep_last); });
}

int echomq_clear_retention(echomq_client* c, const char* queue) {
  return guarded(c, [&] { c->core.clearRetention(queue); });
}

int echomq_set_events(echomq_client* c, const char* queue, uint64_t max_len, int flags) {
  return guarded(c, [&] {
    if (flags & ~ECHOMQ_EVENTS_ENQUEUED) echomq::invalid("unknown event flags");
    c->core.setEvents(queue, max_len, (flags & ECHOMQ_EVENTS_ENQUEUED) != 0);
  });
}

int echomq_clear_events(echomq_client* c, const char* queue) {
  return guarded(c, [&] { c->core.clearEvents(queue); });
}

int echomq_progress(echomq_client* c, const char* queue, uint64_t id, uint64_t token, const char* value,
                    size_t value_len) {
  return guarded(c, [&] { c->core.progress(queue, id, token, value, value_len); });
}

int echomq_wait_job(echomq_client* c, const char* queue, uint64_t id, int64_t timeout_ms, echomq_job** out) {
  if (out) *out = nullptr;
  bool done = false;
  int rc = guarded(c, [&] {
    requireOut(out, "out");
    echomq::Job j;
    done = c->core.waitJob(queue, id, timeout_ms, j);
    if (done) *out = new echomq_job{std::move(j)};
  });
  return rc == ECHOMQ_OK && !done ? ECHOMQ_PENDING : rc;
}

int echomq_events_read(echomq_client* c, const char* queue, const char* after, size_t count, int64_t block_ms,
                       echomq_event_list** out) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    if (!after) echomq::invalid("after is NULL");
    auto* l = new echomq_event_list();
    try {
      l->entries = c->core.readEvents(queue, after, count, block_ms);
    } catch (...) {
      delete l;
      throw;
    }
    *out = l;
  });
}

size_t echomq_event_list_count(const echomq_event_list* l) { return l ? l->entries.size() : 0; }
const char* echomq_event_list_id(const echomq_event_list* l, size_t i) {
  return l && i < l->entries.size() ? l->entries[i][0].c_str() : nullptr;
}
size_t echomq_event_list_nfields(const echomq_event_list* l, size_t i) {
  return l && i < l->entries.size() ? (l->entries[i].size() - 1) / 2 : 0;
}
const char* echomq_event_list_name(const echomq_event_list* l, size_t i, size_t k) {
  if (!l || i >= l->entries.size() || 3 + 2 * k > l->entries[i].size()) return nullptr;
  return l->entries[i][1 + 2 * k].c_str();
}
const char* echomq_event_list_value(const echomq_event_list* l, size_t i, size_t k, size_t* len) {
  if (len) *len = 0;
  if (!l || i >= l->entries.size() || 3 + 2 * k > l->entries[i].size()) return nullptr;
  const std::string& v = l->entries[i][2 + 2 * k];
  if (len) *len = v.size();
  return v.c_str();
}
void echomq_event_list_free(echomq_event_list* l) { delete l; }
