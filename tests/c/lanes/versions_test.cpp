// Every version of every versioned struct still works: a caller built
// against an older header passes that version's number and a struct that
// ends where that version ended. Each struct here is exactly that long (in
// an ASan build, ECHOMQ_SANITIZE=ON, any read or write past its end is an
// error; elsewhere a sentinel tail shows a write, and its bytes make a read
// of a later field fail). For each version the test also shows that the
// version's last field is read, so the library does not read too little.
#include "test_env.hpp"

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace emqtest;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kTail = 0;  // ASan catches any access past the struct
#else
constexpr size_t kTail = 64;
#endif
constexpr unsigned char kFill = 0xA5;

// Where each version of each struct ends, as each release's header had it:
// ends[v - 1], the current version's end being sizeof.
template <class T>
std::vector<size_t> ends();
template <>
std::vector<size_t> ends<echomq_client_options>() {
  return {offsetof(echomq_client_options, wait_replicas), offsetof(echomq_client_options, tls_ca),
          sizeof(echomq_client_options)};
}
template <>
std::vector<size_t> ends<echomq_enqueue_options>() {
  return {offsetof(echomq_enqueue_options, idempotency_key), offsetof(echomq_enqueue_options, keep_ms),
          offsetof(echomq_enqueue_options, cost_estimate), offsetof(echomq_enqueue_options, at_ms),
          offsetof(echomq_enqueue_options, timeout_ms), offsetof(echomq_enqueue_options, name),
          sizeof(echomq_enqueue_options)};
}
template <>
std::vector<size_t> ends<echomq_schedule_options>() {
  return {sizeof(echomq_schedule_options)};
}
template <>
std::vector<size_t> ends<echomq_worker_options>() {
  return {offsetof(echomq_worker_options, wait_replicas), offsetof(echomq_worker_options, target_wait_ms),
          offsetof(echomq_worker_options, report_outcomes), sizeof(echomq_worker_options)};
}
template <>
std::vector<size_t> ends<echomq_job_report>() {
  return {offsetof(echomq_job_report, result), offsetof(echomq_job_report, result_dropped),
          sizeof(echomq_job_report)};
}
template <>
std::vector<size_t> ends<echomq_worker_stats>() {
  return {offsetof(echomq_worker_stats, unconfirmed), offsetof(echomq_worker_stats, canceled),
          sizeof(echomq_worker_stats)};
}
template <>
std::vector<size_t> ends<echomq_queue_stats>() {
  return {offsetof(echomq_queue_stats, tenants), offsetof(echomq_queue_stats, canceled_total),
          sizeof(echomq_queue_stats)};
}
template <>
std::vector<size_t> ends<echomq_outcome_settings>() {
  return {sizeof(echomq_outcome_settings)};
}
template <>
std::vector<size_t> ends<echomq_lane_info>() {
  return {offsetof(echomq_lane_info, rate_jobs), offsetof(echomq_lane_info, tenant), offsetof(echomq_lane_info, burst),
          sizeof(echomq_lane_info)};
}

// A struct of version v as an older caller has it: exactly as long as that
// version, its bytes kFill (and a kFill tail outside ASan builds).
template <class T>
class Old {
 public:
  explicit Old(unsigned v) : n_(ends<T>().at(v - 1)), buf_(new unsigned char[n_ + kTail]) {
    std::memset(buf_.get(), kFill, n_ + kTail);
    get()->version = v;
  }
  T *get() { return reinterpret_cast<T *>(buf_.get()); }
  // Takes the fields of this version from a whole struct.
  void set(const T &whole) {
    const unsigned v = get()->version;
    std::memcpy(buf_.get(), &whole, n_);
    get()->version = v;
  }
  bool tail_intact() const {
    for (size_t i = n_; i < n_ + kTail; ++i)
      if (buf_[i] != kFill) return false;
    return true;
  }

 private:
  size_t n_;
  std::unique_ptr<unsigned char[]> buf_;
};

}  // namespace

TEST_CASE("every version of the table of struct ends is the header's", "[versions]") {
  CHECK(ends<echomq_client_options>().size() == ECHOMQ_CLIENT_OPTIONS_VERSION);
  CHECK(ends<echomq_enqueue_options>().size() == ECHOMQ_ENQUEUE_OPTIONS_VERSION);
  CHECK(ends<echomq_worker_options>().size() == ECHOMQ_WORKER_OPTIONS_VERSION);
  CHECK(ends<echomq_job_report>().size() == ECHOMQ_JOB_REPORT_VERSION);
  CHECK(ends<echomq_worker_stats>().size() == ECHOMQ_WORKER_STATS_VERSION);
  CHECK(ends<echomq_queue_stats>().size() == ECHOMQ_QUEUE_STATS_VERSION);
  CHECK(ends<echomq_outcome_settings>().size() == ECHOMQ_OUTCOME_SETTINGS_VERSION);
  CHECK(ends<echomq_lane_info>().size() == ECHOMQ_LANE_INFO_VERSION);
  CHECK(ends<echomq_schedule_options>().size() == ECHOMQ_SCHEDULE_OPTIONS_VERSION);
}

TEST_CASE("client options: versions 1, 2 and 3", "[versions]") {
  for (unsigned v = 1; v <= ECHOMQ_CLIENT_OPTIONS_VERSION; ++v) {
    INFO("version " << v);
    Old<echomq_client_options> o(v);
    REQUIRE(echomq_client_options_init(o.get(), v) == ECHOMQ_OK);
    CHECK(o.tail_intact());
    CHECK(o.get()->version == v);
    CHECK(o.get()->command_timeout_ms == 5000);
    echomq_client *raw = nullptr;
    REQUIRE(echomq_client_new(&raw, o.get()) == ECHOMQ_OK);
    ClientPtr c(raw);
    EMQ_REQUIRE_OK(c.get(), echomq_client_connect(c.get(), server_url().c_str()));
    EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
    // The version's last field is read.
    if (v == 1) o.get()->max_payload_bytes = 0;
    if (v == 2) o.get()->wait_timeout_ms = 0;
    if (v == 3) o.get()->tls_insecure_skip_verify = 2;
    raw = nullptr;
    CHECK(echomq_client_new(&raw, o.get()) == ECHOMQ_EINVAL);
    CHECK(raw == nullptr);
  }
  echomq_client_options o = ECHOMQ_CLIENT_OPTIONS_INIT;
  for (unsigned bad : {0u, ECHOMQ_CLIENT_OPTIONS_VERSION + 1u}) {
    CHECK(echomq_client_options_init(&o, bad) == ECHOMQ_EINVAL);
    o.version = bad;
    echomq_client *raw = nullptr;
    CHECK(echomq_client_new(&raw, &o) == ECHOMQ_EINVAL);
  }
}

TEST_CASE("enqueue options: versions 1 to 7", "[versions]") {
  auto c = connect_client();
  const std::string q = fresh_queue("versions-enqueue");
  for (unsigned v = 1; v <= ECHOMQ_ENQUEUE_OPTIONS_VERSION; ++v) {
    INFO("version " << v);
    Old<echomq_enqueue_options> o(v);
    REQUIRE(echomq_enqueue_options_init(o.get(), v) == ECHOMQ_OK);
    CHECK(o.tail_intact());
    CHECK(o.get()->version == v);
    CHECK(o.get()->delay_ms == 0);
    o.get()->max_attempts = 2;
    if (v >= 2) o.get()->idempotency_key = nullptr;
    uint64_t id = 0;
    EMQ_REQUIRE_OK(c.get(), echomq_enqueue(c.get(), q.c_str(), "g", "p", 1, o.get(), &id));
    CHECK(echomq_job_max_attempts(get_job(c.get(), q, id).get()) == 2);
    // The version's last field is read.
    echomq_enqueue_options whole = ECHOMQ_ENQUEUE_OPTIONS_INIT;
    if (v == 1) whole.max_attempts = ECHOMQ_ATTEMPTS_MAX + 1;
    if (v == 2) whole.dedup_window_ms = ECHOMQ_DEDUP_WINDOW_MAX_MS + 1;
    if (v == 3) whole.keep_last = ECHOMQ_KEEP_LAST_MAX + 1;
    if (v == 4) whole.cost_estimate = static_cast<uint64_t>(ECHOMQ_ID_MAX) + 1;
    if (v == 5) whole.at_ms = -1;
    if (v == 6) whole.expire_flags = 2;
    if (v == 7) whole.name = "bad\x01name";
    if (v == 2) whole.idempotency_key = "k";
    o.set(whole);
    EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_enqueue(c.get(), q.c_str(), "g", "p", 1, o.get(), &id));
  }
  CHECK(stats(c.get(), q).pending == ECHOMQ_ENQUEUE_OPTIONS_VERSION);
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  CHECK(echomq_enqueue_options_init(&o, ECHOMQ_ENQUEUE_OPTIONS_VERSION + 1) == ECHOMQ_EINVAL);
  o.version = 0;
  CHECK(echomq_enqueue(c.get(), q.c_str(), "g", "p", 1, &o, nullptr) == ECHOMQ_EINVAL);
  require_verified(c.get(), q);
}

TEST_CASE("worker options: versions 1 to 4", "[versions]") {
  auto c = connect_client();
  const std::string q = fresh_queue("versions-worker");
  for (unsigned v = 1; v <= ECHOMQ_WORKER_OPTIONS_VERSION; ++v) {
    INFO("version " << v);
    Old<echomq_worker_options> o(v);
    REQUIRE(echomq_worker_options_init(o.get(), v) == ECHOMQ_OK);
    CHECK(o.tail_intact());
    CHECK(o.get()->version == v);
    CHECK(o.get()->slots == 8);
    enqueue(c.get(), q, "g", "v" + std::to_string(v));
    echomq_worker *raw = nullptr;
    REQUIRE(echomq_worker_new(&raw, server_url().c_str(), q.c_str(), o.get()) == ECHOMQ_OK);
    WorkerPtr w(raw);
    REQUIRE(echomq_worker_start(w.get()) == ECHOMQ_OK);
    echomq_job *j = nullptr;
    REQUIRE(echomq_worker_next(w.get(), 5000, &j) == ECHOMQ_OK);
    CHECK(payload_of(j) == "v" + std::to_string(v));
    // report_outcomes is off unless asked for: a report taken is ECHOMQ_OK.
    CHECK(echomq_worker_fail(w.get(), j, "once", ECHOMQ_RETRY_DEAD) == ECHOMQ_OK);
    echomq_job_free(j);
    REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
    // The version's last field is read.
    echomq_worker_options whole = ECHOMQ_WORKER_OPTIONS_INIT;
    if (v == 1) whole.command_timeout_ms = 0;
    if (v == 2) whole.wait_timeout_ms = 0;
    if (v == 3) whole.target_wait_ms = -1;
    if (v == 4) whole.idle_timeout_ms = -1;
    o.set(whole);
    raw = nullptr;
    CHECK(echomq_worker_new(&raw, server_url().c_str(), q.c_str(), o.get()) == ECHOMQ_EINVAL);
    CHECK(raw == nullptr);
  }
  CHECK(stats(c.get(), q).dead == ECHOMQ_WORKER_OPTIONS_VERSION);
  echomq_worker_options o = ECHOMQ_WORKER_OPTIONS_INIT;
  CHECK(echomq_worker_options_init(&o, 0) == ECHOMQ_EINVAL);
  o.version = ECHOMQ_WORKER_OPTIONS_VERSION + 1;
  echomq_worker *raw = nullptr;
  CHECK(echomq_worker_new(&raw, server_url().c_str(), q.c_str(), &o) == ECHOMQ_EINVAL);
  require_verified(c.get(), q);
}

TEST_CASE("job reports: versions 1, 2 and 3", "[versions]") {
  auto c = connect_client();
  const std::string q = fresh_queue("versions-report");
  EMQ_REQUIRE_OK(c.get(), echomq_set_retention(c.get(), q.c_str(), 0, 100));
  echomq_worker_options wo = ECHOMQ_WORKER_OPTIONS_INIT;
  wo.slots = 1;
  WorkerPtr w = start_worker(q, wo);
  for (unsigned v = 1; v <= ECHOMQ_JOB_REPORT_VERSION; ++v) {
    INFO("version " << v);
    Old<echomq_job_report> r(v);
    REQUIRE(echomq_job_report_init(r.get(), v) == ECHOMQ_OK);
    CHECK(r.tail_intact());
    CHECK(r.get()->version == v);
    CHECK(r.get()->cost == 0);
    const uint64_t id = enqueue(c.get(), q, "g", "p");
    echomq_job *j = nullptr;
    REQUIRE(echomq_worker_next(w.get(), 5000, &j) == ECHOMQ_OK);
    REQUIRE(echomq_job_id(j) == id);
    // The version's last field is read: a bad one refuses the report.
    echomq_job_report whole = ECHOMQ_JOB_REPORT_INIT;
    if (v == 1) whole.cost = static_cast<uint64_t>(ECHOMQ_ID_MAX) + 1;
    if (v == 2) whole.result_len = 3;  // a NULL result with a length
    if (v == 3) {  // a result both kept and dropped
      whole.result = "r";
      whole.result_len = 1;
      whole.result_dropped = "why";
    }
    r.set(whole);
    CHECK(echomq_worker_done_with(w.get(), j, r.get()) == ECHOMQ_EINVAL);
    whole = echomq_job_report ECHOMQ_JOB_REPORT_INIT;
    whole.cost = 7;
    whole.result = "r";
    whole.result_len = 1;
    r.set(whole);
    CHECK(echomq_worker_done_with(w.get(), j, r.get()) == ECHOMQ_OK);
    echomq_job_free(j);
    REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);  // settles the ack
    w = start_worker(q, wo);
    JobPtr done = get_job(c.get(), q, id);
    CHECK(echomq_job_state_of(done.get()) == ECHOMQ_JOB_COMPLETED);
    size_t n = 0;
    echomq_job_result(done.get(), &n);
    CHECK(n == (v >= 2 ? 1u : 0u));  // version 1 has no result: the one past its end is not read
  }
  echomq_job_report r = ECHOMQ_JOB_REPORT_INIT;
  CHECK(echomq_job_report_init(&r, 0) == ECHOMQ_EINVAL);
  enqueue(c.get(), q, "g", "p");
  echomq_job *j = nullptr;
  REQUIRE(echomq_worker_next(w.get(), 5000, &j) == ECHOMQ_OK);
  r.version = ECHOMQ_JOB_REPORT_VERSION + 1;
  CHECK(echomq_worker_done_with(w.get(), j, &r) == ECHOMQ_EINVAL);
  CHECK(echomq_worker_done(w.get(), j) == ECHOMQ_OK);  // the refused report settled nothing
  echomq_job_free(j);
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  require_verified(c.get(), q);
}

TEST_CASE("worker stats: versions 1, 2 and 3", "[versions]") {
  auto c = connect_client();
  const std::string q = fresh_queue("versions-wstats");
  enqueue(c.get(), q, "g", "p");
  WorkerPtr w = start_worker(q, ECHOMQ_WORKER_OPTIONS_INIT);
  echomq_job *j = nullptr;
  REQUIRE(echomq_worker_next(w.get(), 5000, &j) == ECHOMQ_OK);
  REQUIRE(echomq_worker_done(w.get(), j) == ECHOMQ_OK);
  echomq_job_free(j);
  REQUIRE(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 5000) == ECHOMQ_OK);
  for (unsigned v = 1; v <= ECHOMQ_WORKER_STATS_VERSION; ++v) {
    INFO("version " << v);
    Old<echomq_worker_stats> s(v);
    REQUIRE(echomq_worker_stats_get(w.get(), s.get()) == ECHOMQ_OK);
    CHECK(s.tail_intact());
    CHECK(s.get()->version == v);
    CHECK(s.get()->claimed == 1);
    CHECK(s.get()->done == 1);
    CHECK(s.get()->dead == 0);  // the version-1 struct's last field is written
    if (v >= 2) CHECK(s.get()->unconfirmed == 0);
    if (v >= 3) CHECK(s.get()->timed_out == 0);
  }
  echomq_worker_stats s{};
  for (unsigned bad : {0u, ECHOMQ_WORKER_STATS_VERSION + 1u}) {
    s.version = bad;
    CHECK(echomq_worker_stats_get(w.get(), &s) == ECHOMQ_EINVAL);
  }
}

TEST_CASE("queue stats: versions 1, 2 and 3", "[versions]") {
  auto c = connect_client();
  const std::string q = fresh_queue("versions-qstats");
  enqueue(c.get(), q, "T/g", "p");
  for (unsigned v = 1; v <= ECHOMQ_QUEUE_STATS_VERSION; ++v) {
    INFO("version " << v);
    Old<echomq_queue_stats> s(v);
    EMQ_REQUIRE_OK(c.get(), echomq_stats(c.get(), q.c_str(), s.get()));
    CHECK(s.tail_intact());
    CHECK(s.get()->version == v);
    CHECK(s.get()->pending == 1);
    CHECK(s.get()->lanes == 1);
    CHECK(s.get()->server_time_ms > 0);  // the version-1 struct's last field is written
    if (v >= 2) CHECK(s.get()->tenants == 1);
    if (v >= 3) CHECK(s.get()->bursting == 0);
  }
  echomq_queue_stats bad{};
  bad.version = ECHOMQ_QUEUE_STATS_VERSION + 1;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_stats(c.get(), q.c_str(), &bad));
}

TEST_CASE("outcome settings: version 1", "[versions]") {
  auto c = connect_client();
  const std::string q = fresh_queue("versions-outcomes");
  EMQ_REQUIRE_OK(c.get(), echomq_set_events(c.get(), q.c_str(), 500, 0));
  Old<echomq_outcome_settings> o(1);
  EMQ_REQUIRE_OK(c.get(), echomq_get_outcomes(c.get(), q.c_str(), o.get()));
  CHECK(o.tail_intact());
  CHECK(o.get()->version == 1);
  CHECK(o.get()->events_max_len == 500);
  CHECK(o.get()->events_flags == 0);  // the last field is written
  echomq_outcome_settings bad{};
  bad.version = ECHOMQ_OUTCOME_SETTINGS_VERSION + 1;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_get_outcomes(c.get(), q.c_str(), &bad));
}

TEST_CASE("lane info: versions 1 to 4", "[versions]") {
  auto c = connect_client();
  const std::string q = fresh_queue("versions-lane");
  enqueue(c.get(), q, "T/L", "p");
  EMQ_REQUIRE_OK(c.get(), echomq_set_rate(c.get(), q.c_str(), "T/L", 5, 1000, 0));
  EMQ_REQUIRE_OK(c.get(), echomq_set_cap(c.get(), q.c_str(), "T/L", 9));
  for (unsigned v = 1; v <= ECHOMQ_LANE_INFO_VERSION; ++v) {
    INFO("version " << v);
    Old<echomq_lane_info> l(v);
    EMQ_REQUIRE_OK(c.get(), echomq_lane(c.get(), q.c_str(), "T/L", l.get()));
    CHECK(l.tail_intact());
    CHECK(l.get()->version == v);
    CHECK(std::string(l.get()->group) == "T/L");
    CHECK(l.get()->depth == 1);
    CHECK(l.get()->delayed == 0);  // the version-1 struct's last field is written
    if (v >= 2) {
      CHECK(l.get()->rate_jobs == 5);
      CHECK(l.get()->cap == 9);
      CHECK(l.get()->cap_is_default == 0);
    }
    if (v >= 3) {
      CHECK(std::string(l.get()->tenant) == "T");
      CHECK(l.get()->sits_out == 0);
    }
    if (v >= 4) CHECK(l.get()->bursting == 0);
  }
  echomq_lane_info bad{};
  bad.version = 0;
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_EINVAL, echomq_lane(c.get(), q.c_str(), "T/L", &bad));
  require_verified(c.get(), q);
}

TEST_CASE("a bad struct version is refused before any I/O", "[versions]") {
  // No server behind the client: a refusal after I/O would be ECONN.
  auto raw_client = echomq_client_create(nullptr);
  REQUIRE(raw_client != nullptr);
  ClientPtr c(raw_client);
  echomq_queue_stats s{};
  s.version = 0;
  CHECK(echomq_stats(c.get(), "q", &s) == ECHOMQ_EINVAL);
  echomq_lane_info l{};
  l.version = ECHOMQ_LANE_INFO_VERSION + 1;
  CHECK(echomq_lane(c.get(), "q", "g", &l) == ECHOMQ_EINVAL);
  echomq_enqueue_options e = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  e.version = 0;
  CHECK(echomq_enqueue(c.get(), "q", "g", "p", 1, &e, nullptr) == ECHOMQ_EINVAL);
  CHECK(std::string(echomq_client_errmsg(c.get())).find("unknown version") != std::string::npos);
}
