// echomq/queue.h: enqueue, claim and settle on a client handle.
#include "echomq/queue.h"

#include <cstring>
#include <string>
#include <vector>

#include "guard.hpp"
#include "job_meta.hpp"
#include "handles.hpp"
#include "validate.hpp"
#include "versioned.hpp"

using emqcapi::guard;
using emqcapi::guarded;
using emqcapi::requireOut;

namespace {

// The lifecycle limits of enqueue options o (version 5; echomq/lifecycle.h).
echomq::JobLimits limitsOf(const echomq_enqueue_options& o) {
  echomq::JobLimits l;
  l.timeout_ms = o.timeout_ms;
  l.expires_at_ms = o.expires_at_ms;
  l.ttl_ms = o.ttl_ms;
  l.expire_drop = (o.expire_flags & ECHOMQ_EXPIRE_DROP) != 0;
  return l;
}

// The enqueue options of any version, checked (the fields of later
// versions keep their defaults).
echomq_enqueue_options readEnqueueOptions(const echomq_enqueue_options* opts) {
  echomq_enqueue_options o =
      emqcapi::readVersioned(opts, echomq_enqueue_options ECHOMQ_ENQUEUE_OPTIONS_INIT, "enqueue options");
  if (o.idempotency_key && !*o.idempotency_key) echomq::invalid("idempotency key is empty (NULL means none)");
  if (o.idempotency_key && std::strlen(o.idempotency_key) > ECHOMQ_DEDUP_KEY_MAX)
    echomq::invalid("idempotency key is longer than " + std::to_string(ECHOMQ_DEDUP_KEY_MAX) + " bytes");
  echomq::checkKeep(o.keep_ms, o.keep_last);
  echomq::checkEstimate(o.cost_estimate);
  echomq::checkRange("at_ms", o.at_ms, 0, ECHOMQ_ID_MAX);
  if (o.at_ms > 0 && o.delay_ms > 0) echomq::invalid("delay_ms and at_ms exclude each other");
  if (o.expire_flags & ~static_cast<unsigned int>(ECHOMQ_EXPIRE_DROP)) echomq::invalid("unknown expire_flags");
  echomq::checkLimits(limitsOf(o));
  return o;
}

// The stored form of a name (NULL or "" = none) and n headers ("" when
// neither), checked (cpp/job_meta.hpp): the one check of the options' name
// and headers and of a batch entry's own.
std::string metaOf(const char* name, const echomq_header* headers, size_t n) {
  if (n > 0 && !headers) echomq::invalid("headers is NULL with a non-zero count");
  if ((!name || !*name) && n == 0) return {};
  std::vector<std::pair<std::string_view, std::string_view>> h;
  h.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!headers[i].key || !headers[i].value) echomq::invalid("a header's key or value is NULL");
    h.emplace_back(headers[i].key, headers[i].value);
  }
  return echomq::encodeMeta(name ? name : "", h);
}

std::string metaOf(const echomq_enqueue_options& o) { return metaOf(o.name, o.headers, o.header_count); }

// Gives every job of a call meta m (already encoded; "" = none); a batch
// entry with its own, `own[i]`, gets it merged over m (cpp/job_meta.hpp:
// mergeMeta), kept in `merged` while the call runs.
void setMeta(std::vector<echomq::NewJob>& jobs, const std::string& m, const std::vector<std::string>* own,
             std::vector<std::string>& merged) {
  if (own && !m.empty()) {
    merged.resize(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i)
      if (!(*own)[i].empty()) merged[i] = echomq::mergeMeta((*own)[i], m);
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    const std::string& s = own && !(*own)[i].empty() ? (m.empty() ? (*own)[i] : merged[i]) : m;
    jobs[i].meta = s.data();
    jobs[i].meta_len = s.size();
  }
}

// Enqueues `jobs` with options o: their ids, and which were duplicates
// (an idempotency key seen within its window; only with keys).
echomq::EnqueueResult enqueue(echomq_client* c, const char* queue, std::vector<echomq::NewJob>& jobs, bool keyed,
                              const echomq_enqueue_options& o, const std::vector<std::string>* own = nullptr) {
  const std::string meta = metaOf(o);
  std::vector<std::string> merged;
  setMeta(jobs, meta, own, merged);
  if (!keyed)
    return {c->core.enqueue(queue, jobs, o.delay_ms, o.max_attempts, o.keep_ms, o.keep_last, o.cost_estimate,
                            o.at_ms, limitsOf(o)),
            {}};
  return c->core.enqueueKeyed(queue, jobs, o.delay_ms, o.max_attempts, o.dedup_window_ms, o.keep_ms, o.keep_last,
                              o.cost_estimate, o.at_ms, limitsOf(o));
}

// A claim result as one job (or ECHOMQ_EMPTY, *out NULL).
int takeOne(echomq::ClaimResult& r, echomq_job** out) {
  if (r.empty || r.jobs.empty()) return ECHOMQ_EMPTY;
  *out = new echomq_job{std::move(r.jobs.front())};
  return ECHOMQ_OK;
}

// A claim result as a list (or ECHOMQ_EMPTY, *out NULL).
int takeList(echomq::ClaimResult& r, echomq_job_list** out) {
  if (r.empty || r.jobs.empty()) return ECHOMQ_EMPTY;
  *out = echomq_job_list::of(std::move(r.jobs));
  return ECHOMQ_OK;
}

// A claim-like call on c: OK with what fn claimed into *out, or EMPTY.
template <class Out, class F>
int claimInto(echomq_client* c, Out** out, F&& fn) {
  if (out) *out = nullptr;
  return guarded(c, [&] {
    requireOut(out, "out");
    echomq::ClaimResult r = fn();
    if constexpr (std::is_same_v<Out, echomq_job>) return takeOne(r, out);
    else return takeList(r, out);
  });
}

// Adds entry e to settlement list s, checked.
int settleAdd(echomq_settle* s, echomq::Settlement e) {
  if (!s) return ECHOMQ_EINVAL;
  return guard([&] {
    echomq::checkSettlement(e);
    if (s->entries.size() >= ECHOMQ_BATCH_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "settlement list is full");
    s->entries.push_back(std::move(e));
    s->codes.clear();
  });
}

// Room for one more element, growing geometrically as push_back would
// (reserve(size() + 1) would copy the whole vector on every add).
template <class V>
void roomForOne(V& v) {
  if (v.size() == v.capacity()) v.reserve(v.empty() ? 16 : 2 * v.size());
}

// An ack's result, checked: EINVAL for NULL with a length, ETOOLARGE above
// ECHOMQ_RESULT_MAX.
std::string resultOf(const char* result, size_t result_len) {
  if (result_len > 0 && !result) echomq::invalid("result is NULL with a non-zero length");
  if (result_len > ECHOMQ_RESULT_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "result is over ECHOMQ_RESULT_MAX");
  return std::string(result ? result : "", result_len);
}

}  // namespace

extern "C" {

/* ---- enqueue ---- */

int echomq_enqueue_options_init(echomq_enqueue_options* opts, unsigned int version) {
  return emqcapi::initVersioned(opts, version, echomq_enqueue_options ECHOMQ_ENQUEUE_OPTIONS_INIT);
}

int echomq_enqueue(echomq_client* c, const char* queue, const char* group, const char* payload,
                   size_t payload_len, const echomq_enqueue_options* opts, uint64_t* id_out) {
  return guarded(c, [&] {
    const echomq_enqueue_options o = readEnqueueOptions(opts);
    if (!group) echomq::invalid("group name is NULL");
    std::vector<echomq::NewJob> one{{group, std::strlen(group), payload, payload_len}};
    if (o.idempotency_key) {
      one[0].key = o.idempotency_key;
      one[0].key_len = std::strlen(o.idempotency_key);
    }
    echomq::EnqueueResult r = enqueue(c, queue, one, o.idempotency_key != nullptr, o);
    if (id_out) *id_out = r.ids.front();
    return !r.duplicate.empty() && r.duplicate.front() ? ECHOMQ_DUPLICATE : ECHOMQ_OK;
  });
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
  return echomq_batch_add_named(b, group, payload, payload_len, key, nullptr, nullptr, 0);
}

int echomq_batch_add_named(echomq_batch* b, const char* group, const char* payload, size_t payload_len,
                           const char* key, const char* name, const echomq_header* headers,
                           size_t header_count) {
  if (!b) return ECHOMQ_EINVAL;
  return guard([&] {
    echomq::checkLaneName(group);
    if (key && std::strlen(key) > ECHOMQ_DEDUP_KEY_MAX)
      echomq::invalid("idempotency key is longer than " + std::to_string(ECHOMQ_DEDUP_KEY_MAX) + " bytes");
    if (payload_len > 0 && !payload) echomq::invalid("payload is NULL with a non-zero length");
    if (payload_len > ECHOMQ_HARD_MAX_PAYLOAD) echomq::fail(ECHOMQ_ETOOLARGE, "payload too large");
    std::string m = metaOf(name, headers, header_count);
    if (b->groups.size() >= ECHOMQ_BATCH_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "batch is full");
    // All four entries or none: a failed allocation leaves the batch as it
    // was (room is made first; the moves that follow cannot throw).
    std::string g(group), p(payload ? payload : "", payload_len), k(key ? key : "");
    roomForOne(b->groups);
    roomForOne(b->payloads);
    roomForOne(b->keys);
    roomForOne(b->metas);
    b->groups.push_back(std::move(g));
    b->payloads.push_back(std::move(p));
    b->keys.push_back(std::move(k));
    if (!m.empty()) b->named = true;
    b->metas.push_back(std::move(m));
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
  b->groups.clear();  // capacity kept for the next round
  b->payloads.clear();
  b->keys.clear();
  b->metas.clear();
  b->keyed = false;
  b->named = false;
  b->ids.clear();
  b->duplicate.clear();
}
void echomq_batch_free(echomq_batch* b) { delete b; }

int echomq_enqueue_batch(echomq_client* c, const char* queue, echomq_batch* b,
                         const echomq_enqueue_options* opts) {
  return guarded(c, [&] {
    if (!b) echomq::invalid("batch is NULL");
    const echomq_enqueue_options o = readEnqueueOptions(opts);
    if (o.idempotency_key) echomq::invalid("a batch takes its idempotency keys per job (echomq_batch_add_keyed)");
    std::vector<echomq::NewJob> jobs;
    jobs.reserve(b->groups.size());
    for (size_t i = 0; i < b->groups.size(); ++i)
      jobs.push_back({b->groups[i].data(), b->groups[i].size(), b->payloads[i].data(), b->payloads[i].size(),
                      b->keys[i].data(), b->keys[i].size()});
    b->duplicate.clear();
    echomq::EnqueueResult r = enqueue(c, queue, jobs, b->keyed, o, b->named ? &b->metas : nullptr);
    b->ids = std::move(r.ids);
    b->duplicate = std::move(r.duplicate);
  });
}

/* ---- claim ---- */

int echomq_claim(echomq_client* c, const char* queue, int64_t lease_ms, echomq_job** out) {
  return claimInto(c, out, [&] { return c->core.claim(queue, lease_ms, 1, false); });
}

int echomq_wclaim(echomq_client* c, const char* queue, int64_t lease_ms, uint32_t max,
                  echomq_job_list** out) {
  return claimInto(c, out, [&] { return c->core.claim(queue, lease_ms, max, true); });
}

int echomq_bclaim(echomq_client* c, const char* queue, int64_t lease_ms, int64_t timeout_ms,
                  echomq_job** out) {
  return claimInto(c, out, [&] { return c->core.bclaim(queue, lease_ms, timeout_ms); });
}

/* ---- settle ---- */

int echomq_ack(echomq_client* c, const char* queue, uint64_t id, uint64_t token) {
  return guarded(c, [&] { return c->core.ack(queue, id, token); });
}

int echomq_ack_result(echomq_client* c, const char* queue, uint64_t id, uint64_t token,
                      const char* result, size_t result_len) {
  return guarded(c, [&] {
    echomq::Settlement s{id, token, true, 0, {}, resultOf(result, result_len)};
    std::vector<echomq::Settlement> one{std::move(s)};
    echomq::TakeResult r = c->core.settleClaim(queue, one, 0, 0, false);
    int code = r.codes.at(0);
    if (code == ECHOMQ_ENOTFOUND) echomq::fail(code, "ack: job " + std::to_string(id) + " not found");
    if (code == ECHOMQ_ESTALE)
      echomq::fail(code, "ack: job " + std::to_string(id) + " is not leased with token " + std::to_string(token) +
                             " (its lease was lost)");
    return code == ECHOMQ_WAS_CANCELED ? code : ECHOMQ_OK;
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
  return claimInto(c, next, [&] { return c->core.ackClaim(queue, id, token, lease_ms); });
}

int echomq_fail(echomq_client* c, const char* queue, uint64_t id, uint64_t token,
                const char* reason, int64_t retry_delay_ms, int* outcome) {
  return guarded(c, [&] {
    int o = c->core.fail(queue, id, token, reason, retry_delay_ms);
    // A job canceled while leased settled as canceled: dead-lettered.
    if (outcome) *outcome = o == ECHOMQ_WAS_CANCELED ? ECHOMQ_FAIL_DEAD : o;
    return o == ECHOMQ_WAS_CANCELED ? o : ECHOMQ_OK;
  });
}

int echomq_extend(echomq_client* c, const char* queue, uint64_t id, uint64_t token,
                  int64_t lease_ms, int64_t* lease_until_ms) {
  return guarded(c, [&] {
    int st = ECHOMQ_OK;
    int64_t d = c->core.extend(queue, id, token, lease_ms, &st);
    if (lease_until_ms) *lease_until_ms = d;
    return st;
  });
}

/* ---- batches ---- */

int echomq_claim_batch(echomq_client* c, const char* queue, int64_t lease_ms, uint32_t n,
                       int weighted, echomq_job_list** out) {
  return claimInto(c, out, [&] {
    if (n > ECHOMQ_BATCH_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "n is over ECHOMQ_BATCH_MAX");
    return c->core.claimBatch(queue, lease_ms, n, weighted != 0);
  });
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
  return guard([&] { return settleAdd(s, echomq::Settlement{id, token, true, 0, {}, resultOf(result, result_len)}); });
}
int echomq_settle_fail(echomq_settle* s, uint64_t id, uint64_t token, const char* reason,
                       int64_t retry_delay_ms) {
  return guard([&] {
    size_t rlen = reason ? std::strlen(reason) : 0;
    if (rlen > ECHOMQ_REASON_MAX) rlen = ECHOMQ_REASON_MAX;
    return settleAdd(s, echomq::Settlement{id, token, false, retry_delay_ms, std::string(reason ? reason : "", rlen), {}});
  });
}
int echomq_settle_ack_cost(echomq_settle* s, uint64_t id, uint64_t token, const char* group, uint64_t cost) {
  return guard([&] {
    if (!group) echomq::invalid("group is NULL");
    echomq::Settlement e{id, token, true, 0, {}, {}};
    e.lane = group;
    e.cost = cost;
    return settleAdd(s, std::move(e));
  });
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
  return guarded(c, [&] {
    if (n > 0) requireOut(out, "out");
    if (n > ECHOMQ_BATCH_MAX) echomq::fail(ECHOMQ_ETOOLARGE, "n is over ECHOMQ_BATCH_MAX");
    static const std::vector<echomq::Settlement> kNone;
    if (s) s->codes.clear();
    echomq::TakeResult r = c->core.settleClaim(queue, s ? s->entries : kNone, lease_ms, n, weighted != 0);
    if (s) s->codes = std::move(r.codes);
    return n > 0 ? takeList(r.claimed, out) : ECHOMQ_OK;
  });
}

int echomq_extend_many(echomq_client* c, const char* queue, const uint64_t* ids,
                       const uint64_t* tokens, size_t n, int64_t lease_ms, int* statuses,
                       int64_t* lease_until_ms) {
  return guarded(c, [&] {
    int64_t d = c->core.extendMany(queue, ids, tokens, n, lease_ms, statuses);
    if (lease_until_ms) *lease_until_ms = d;
  });
}

}  // extern "C"
