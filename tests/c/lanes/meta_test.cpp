// A job's name and headers (echomq_enqueue_options version 7): kept through
// retries, dead letters and redrives, shown by claims, lookups and dead
// listings; bad ones refused before any write; an older caller has none.
#include "test_env.hpp"

#include <string>

using namespace emqtest;

namespace {

constexpr int64_t kLease = 60000;

const echomq_header kHeaders[] = {{"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
                                  {"tenant", "acme"}};

echomq_enqueue_options named(const char *name, const echomq_header *h = kHeaders, size_t n = 2) {
  echomq_enqueue_options o = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  o.name = name;
  o.headers = h;
  o.header_count = n;
  return o;
}

void require_meta(const echomq_job *j, const char *name) {
  REQUIRE(j);
  CHECK(std::string(echomq_job_name(j)) == name);
  REQUIRE(echomq_job_header_count(j) == 2);
  CHECK(std::string(echomq_job_header_key(j, 0)) == "traceparent");
  CHECK(std::string(echomq_job_header_value(j, 1)) == "acme");
  CHECK(std::string(echomq_job_header(j, "tenant")) == "acme");
  CHECK(echomq_job_header(j, "none") == nullptr);
  CHECK(echomq_job_header_key(j, 2) == nullptr);
}

}  // namespace

TEST_CASE("a job's name and headers go with it through retries, dead letters and redrives", "[meta]") {
  auto c = connect_client();
  const std::string q = fresh_queue("meta");
  echomq_enqueue_options o = named("email:send");
  o.max_attempts = 2;
  const uint64_t id = enqueue(c.get(), q, "a", "body", &o);
  const uint64_t plain = enqueue(c.get(), q, "b", "other");
  require_meta(get_job(c.get(), q, id).get(), "email:send");
  JobPtr j = claim(c.get(), q, kLease);
  REQUIRE(echomq_job_id(j.get()) == id);
  require_meta(j.get(), "email:send");
  CHECK(payload_of(j.get()) == "body");
  int outcome = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "once", 0, &outcome));
  // The plain job comes next (lane b), then the retry of the named one.
  JobPtr p = claim(c.get(), q, kLease);
  REQUIRE(echomq_job_id(p.get()) == plain);
  CHECK(std::string(echomq_job_name(p.get())).empty());
  CHECK(echomq_job_header_count(p.get()) == 0);
  ack(c.get(), q, p.get());
  j = claim(c.get(), q, kLease);
  REQUIRE(echomq_job_id(j.get()) == id);
  require_meta(j.get(), "email:send");
  EMQ_REQUIRE_OK(c.get(), echomq_fail(c.get(), q.c_str(), id, echomq_job_token(j.get()), "twice", 0, &outcome));
  echomq_job_list *dead = nullptr;
  EMQ_REQUIRE_OK(c.get(), echomq_dead(c.get(), q.c_str(), 0, 10, &dead));
  JobListPtr dl(dead);
  REQUIRE(echomq_job_list_count(dead) == 1);
  require_meta(echomq_job_list_at(dead, 0), "email:send");
  uint64_t moved = 0;
  EMQ_REQUIRE_OK(c.get(), echomq_redrive(c.get(), q.c_str(), &id, 1, &moved));
  REQUIRE(moved == 1);
  j = claim(c.get(), q, kLease);
  require_meta(j.get(), "email:send");
  CHECK(payload_of(j.get()) == "body");
  require_verified(c.get(), q);
}

TEST_CASE("a batch gives every job the call's name, and headers alone need no name", "[meta]") {
  auto c = connect_client();
  const std::string q = fresh_queue("metabatch");
  echomq_batch *b = nullptr;
  REQUIRE(echomq_batch_new(&b) == ECHOMQ_OK);
  BatchPtr bp(b);
  for (int i = 0; i < 3; ++i) REQUIRE(echomq_batch_add(b, "a", "x", 1) == ECHOMQ_OK);
  echomq_enqueue_options o = named("report");
  EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), b, &o));
  for (int i = 0; i < 3; ++i) require_meta(claim(c.get(), q, kLease).get(), "report");
  echomq_enqueue_options h = named(nullptr);
  const uint64_t id = enqueue(c.get(), q, "a", "y", &h);
  require_meta(get_job(c.get(), q, id).get(), "");
}

TEST_CASE("a batch entry carries its own name and headers, over the call's", "[meta][batch]") {
  auto c = connect_client();
  const std::string q = fresh_queue("metaentry");
  echomq_batch *b = nullptr;
  REQUIRE(echomq_batch_new(&b) == ECHOMQ_OK);
  BatchPtr bp(b);
  const echomq_header mine[] = {{"tenant", "globex"}};
  REQUIRE(echomq_batch_add_named(b, "a", "1", 1, nullptr, "email:send", kHeaders, 2) == ECHOMQ_OK);
  REQUIRE(echomq_batch_add(b, "a", "2", 1) == ECHOMQ_OK);
  REQUIRE(echomq_batch_add_named(b, "a", "3", 1, "k3", nullptr, mine, 1) == ECHOMQ_OK);
  REQUIRE(echomq_batch_add_named(b, "a", "4", 1, nullptr, "", nullptr, 0) == ECHOMQ_OK);
  SECTION("without options' name, an entry with none has none") {
    EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), b, nullptr));
    require_meta(claim(c.get(), q, kLease).get(), "email:send");
    auto j2 = claim(c.get(), q, kLease);
    CHECK(std::string(echomq_job_name(j2.get())).empty());
    CHECK(echomq_job_header_count(j2.get()) == 0);
    auto j3 = claim(c.get(), q, kLease);
    CHECK(std::string(echomq_job_name(j3.get())).empty());
    REQUIRE(echomq_job_header_count(j3.get()) == 1);
    CHECK(std::string(echomq_job_header(j3.get(), "tenant")) == "globex");
    CHECK(std::string(echomq_job_name(claim(c.get(), q, kLease).get())).empty());
  }
  SECTION("with options' name and headers: an entry's own name wins, its headers merge over the options'") {
    echomq_enqueue_options o = named("report");
    EMQ_REQUIRE_OK(c.get(), echomq_enqueue_batch(c.get(), q.c_str(), b, &o));
    require_meta(claim(c.get(), q, kLease).get(), "email:send");
    require_meta(claim(c.get(), q, kLease).get(), "report");
    auto j3 = claim(c.get(), q, kLease);
    CHECK(std::string(echomq_job_name(j3.get())) == "report");
    REQUIRE(echomq_job_header_count(j3.get()) == 2);
    CHECK(std::string(echomq_job_header_key(j3.get(), 0)) == "traceparent");
    CHECK(std::string(echomq_job_header(j3.get(), "tenant")) == "globex");
    require_meta(claim(c.get(), q, kLease).get(), "report");
  }
  SECTION("an entry's headers and the options' past a limit together: refused, nothing written") {
    const std::string half(ECHOMQ_HEADERS_BYTES_MAX / 2 + 1, 'v');
    const echomq_header big[] = {{"one", half.c_str()}};
    const echomq_header other[] = {{"two", half.c_str()}};
    REQUIRE(echomq_batch_add_named(b, "a", "5", 1, nullptr, nullptr, big, 1) == ECHOMQ_OK);
    echomq_enqueue_options o = named("report", other, 1);
    CHECK(echomq_enqueue_batch(c.get(), q.c_str(), b, &o) == ECHOMQ_ETOOLARGE);
    CHECK(claim(c.get(), q, kLease) == nullptr);
  }
}

TEST_CASE("a bad batch entry's name or headers are refused when added, the batch unchanged", "[meta][batch]") {
  echomq_batch *b = nullptr;
  REQUIRE(echomq_batch_new(&b) == ECHOMQ_OK);
  BatchPtr bp(b);
  auto refused = [&](const char *name, const echomq_header *h, size_t n, int want) {
    CHECK(echomq_batch_add_named(b, "a", "x", 1, nullptr, name, h, n) == want);
    CHECK(echomq_batch_count(b) == 0);
  };
  const std::string long_name(ECHOMQ_JOB_NAME_MAX + 1, 'n');
  refused(long_name.c_str(), nullptr, 0, ECHOMQ_ETOOLARGE);
  refused("tab\there", nullptr, 0, ECHOMQ_EINVAL);
  const echomq_header twice[] = {{"k", "1"}, {"k", "2"}};
  refused("n", twice, 2, ECHOMQ_EINVAL);
  const echomq_header null_value[] = {{"k", nullptr}};
  refused("n", null_value, 1, ECHOMQ_EINVAL);
  refused("n", nullptr, 1, ECHOMQ_EINVAL);
  const std::string big(ECHOMQ_HEADERS_BYTES_MAX, 'v');
  const echomq_header large[] = {{"k", big.c_str()}};
  refused(nullptr, large, 1, ECHOMQ_ETOOLARGE);
  CHECK(echomq_batch_add_named(nullptr, "a", "x", 1, nullptr, "n", nullptr, 0) == ECHOMQ_EINVAL);
  const std::string max_name(ECHOMQ_JOB_NAME_MAX, 'n');
  CHECK(echomq_batch_add_named(b, "a", "x", 1, nullptr, max_name.c_str(), kHeaders, 2) == ECHOMQ_OK);
  CHECK(echomq_batch_count(b) == 1);
}

TEST_CASE("bad names and headers are refused before any write", "[meta]") {
  auto c = connect_client();
  const std::string q = fresh_queue("metabad");
  auto refused = [&](const echomq_enqueue_options &o, int status) {
    EMQ_REQUIRE_STATUS(c.get(), status, echomq_enqueue(c.get(), q.c_str(), "a", "x", 1, &o, nullptr));
  };
  const std::string long_name(ECHOMQ_JOB_NAME_MAX + 1, 'n');
  refused(named(long_name.c_str(), nullptr, 0), ECHOMQ_ETOOLARGE);
  refused(named("tab\there", nullptr, 0), ECHOMQ_EINVAL);
  const echomq_header twice[] = {{"k", "1"}, {"k", "2"}};
  refused(named("n", twice, 2), ECHOMQ_EINVAL);
  const echomq_header empty_key[] = {{"", "1"}};
  refused(named("n", empty_key, 1), ECHOMQ_EINVAL);
  const echomq_header newline[] = {{"k", "a\nb"}};
  refused(named("n", newline, 1), ECHOMQ_EINVAL);
  const std::string big(ECHOMQ_HEADERS_BYTES_MAX, 'v');
  const echomq_header large[] = {{"k", big.c_str()}};
  refused(named("n", large, 1), ECHOMQ_ETOOLARGE);
  echomq_header many[ECHOMQ_HEADERS_MAX + 1];
  std::string keys[ECHOMQ_HEADERS_MAX + 1];
  for (size_t i = 0; i <= ECHOMQ_HEADERS_MAX; ++i) {
    keys[i] = "k" + std::to_string(i);
    many[i] = {keys[i].c_str(), "v"};
  }
  refused(named("n", many, ECHOMQ_HEADERS_MAX + 1), ECHOMQ_ETOOLARGE);
  refused(named("n", nullptr, 1), ECHOMQ_EINVAL);
  CHECK(stats(c.get(), q).enqueued_total == 0);
  // At the limits exactly: accepted.
  const std::string max_name(ECHOMQ_JOB_NAME_MAX, 'n');
  size_t used = 0;  // the other headers' keys and values ("v")
  for (size_t i = 0; i < ECHOMQ_HEADERS_MAX; ++i) used += keys[i].size() + (i > 0 ? 1 : 0);
  const std::string fill(ECHOMQ_HEADERS_BYTES_MAX - used, 'v');
  many[0].value = fill.c_str();
  echomq_enqueue_options full = named(max_name.c_str(), many, ECHOMQ_HEADERS_MAX);
  const uint64_t id = enqueue(c.get(), q, "a", "x", &full);
  JobPtr j = get_job(c.get(), q, id);
  CHECK(echomq_job_name(j.get()) == max_name);
  CHECK(echomq_job_header_count(j.get()) == ECHOMQ_HEADERS_MAX);
  CHECK(std::string(echomq_job_header(j.get(), "k0")) == fill);
}

TEST_CASE("a version-6 caller's options end before the name: its jobs have none", "[meta][versions]") {
  auto c = connect_client();
  const std::string q = fresh_queue("metav6");
  echomq_enqueue_options v6{};
  REQUIRE(echomq_enqueue_options_init(&v6, ECHOMQ_ENQUEUE_OPTIONS_VERSION_6) == ECHOMQ_OK);
  CHECK(v6.version == 6u);
  // What lies past a version-6 struct is not read, even when it is garbage.
  v6.name = "bad\x01name";
  v6.header_count = 99;
  const uint64_t id = enqueue(c.get(), q, "a", "x", &v6);
  JobPtr j = get_job(c.get(), q, id);
  CHECK(std::string(echomq_job_name(j.get())).empty());
  CHECK(echomq_job_header_count(j.get()) == 0);
}
