// Group names are binary-safe arguments: any printable UTF-8 (braces, colons,
// spaces, multi-byte characters) round-trips; name checks need no server.
#include "test_env.hpp"

using namespace emqtest;

namespace {
constexpr int64_t kLongLease = 60000;
}

TEST_CASE("printable UTF-8 group names round-trip exactly", "[names]") {
  auto c = connect_client();
  const std::string q = fresh_queue("names");
  const std::vector<std::string> groups = {
      "{x}:y",                         // hash-tag and separator characters
      "emq:{other}:ring",              // looks like a key of another queue
      "a b",                           // space is printable
      "*?[glob]\\",                    // glob characters
      "\xc3\xbc\xc3\xb1\xc3\xae",      // "üñî"
      "\xe6\x97\xa5\xe6\x9c\xac",      // "日本"
      "\xf0\x9f\x98\x80",              // an emoji (4 bytes)
      std::string(ECHOMQ_GROUP_NAME_MAX, 'g'),
      "%s%n%x",                        // never formatted into a command string
      "x:pending",                     // looks like the end of a lane key
      "g:y",                           // looks like the start of one
      "job:1",                         // looks like a job key
  };
  for (const auto &g : groups) {
    INFO("group " << g);
    CHECK(echomq_check_group_name(g.c_str()) == ECHOMQ_OK);
    enqueue(c.get(), q, g, "payload of " + g);
  }
  CHECK(stats(c.get(), q).lanes == groups.size());
  for (const auto &g : groups) {
    JobPtr job = claim(c.get(), q, kLongLease);
    REQUIRE(job);
    CHECK(std::string(echomq_job_group(job.get())) == g);
    CHECK(payload_of(job.get()) == "payload of " + g);
    const echomq_lane_info info = lane(c.get(), q, g);
    CHECK(info.active == 1);
    CHECK(std::string(info.group) == g);
    ack(c.get(), q, job.get());
  }
  require_verified(c.get(), q);
}

TEST_CASE("payloads are binary: NUL bytes and the configured maximum", "[names]") {
  echomq_client_options opts = ECHOMQ_CLIENT_OPTIONS_INIT;
  opts.max_payload_bytes = 4096;
  auto c = connect_client(&opts);
  const std::string q = fresh_queue("binary");
  const std::string with_nul("a\0b\0\xff\x00z", 7);
  const std::string at_max(4096, '\x01');
  enqueue(c.get(), q, "g", with_nul);
  enqueue(c.get(), q, "g", at_max);
  enqueue(c.get(), q, "g", std::string());  // empty payload is a payload
  JobPtr a = claim(c.get(), q, kLongLease);
  JobPtr b = claim(c.get(), q, kLongLease);
  JobPtr e = claim(c.get(), q, kLongLease);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(e);
  CHECK(payload_of(a.get()) == with_nul);
  CHECK(echomq_job_payload(a.get(), nullptr)[7] == '\0');  // a NUL after the last byte
  CHECK(payload_of(b.get()) == at_max);
  CHECK(echomq_job_payload_len(e.get()) == 0);
  for (auto *j : {a.get(), b.get(), e.get()}) ack(c.get(), q, j);
  require_verified(c.get(), q);
}

TEST_CASE("a payload of the default maximum round-trips, one byte more is ETOOLARGE", "[names]") {
  auto c = connect_client();
  const std::string q = fresh_queue("bigpayload");
  std::string big(ECHOMQ_DEFAULT_MAX_PAYLOAD, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131 + 7) % 256);
  enqueue(c.get(), q, "g", big);
  const std::string over = big + "!";
  EMQ_REQUIRE_STATUS(c.get(), ECHOMQ_ETOOLARGE,
                     echomq_enqueue(c.get(), q.c_str(), "g", over.data(), over.size(), nullptr, nullptr));
  JobPtr job = claim(c.get(), q, kLongLease);
  REQUIRE(job);
  CHECK(echomq_job_payload_len(job.get()) == big.size());
  CHECK(payload_of(job.get()) == big);
  ack(c.get(), q, job.get());
  CHECK_FALSE(claim(c.get(), q, kLongLease));
  require_verified(c.get(), q);
}

TEST_CASE("queue and group names are checked without a server", "[names]") {
  CHECK(echomq_check_queue_name("orders") == ECHOMQ_OK);
  CHECK(echomq_check_queue_name("A-z_0.9") == ECHOMQ_OK);
  CHECK(echomq_check_queue_name(std::string(ECHOMQ_QUEUE_NAME_MAX, 'q').c_str()) == ECHOMQ_OK);
  CHECK(echomq_check_queue_name(std::string(ECHOMQ_QUEUE_NAME_MAX + 1, 'q').c_str()) == ECHOMQ_EINVAL);
  CHECK(echomq_check_queue_name("") == ECHOMQ_EINVAL);
  CHECK(echomq_check_queue_name(nullptr) == ECHOMQ_EINVAL);
  for (const char *bad : {"a{b", "a}b", "{q}", "a:b", "a b", "a/b", "a*", "\xc3\xa9", "a\x01"}) {
    INFO("queue name " << bad);
    CHECK(echomq_check_queue_name(bad) == ECHOMQ_EINVAL);
  }

  CHECK(echomq_check_group_name("tenant-42") == ECHOMQ_OK);
  CHECK(echomq_check_group_name(std::string(ECHOMQ_GROUP_NAME_MAX, 'g').c_str()) == ECHOMQ_OK);
  CHECK(echomq_check_group_name(std::string(ECHOMQ_GROUP_NAME_MAX + 1, 'g').c_str()) == ECHOMQ_EINVAL);
  CHECK(echomq_check_group_name("") == ECHOMQ_EINVAL);
  CHECK(echomq_check_group_name(nullptr) == ECHOMQ_EINVAL);
  for (const char *bad : {"a\x01", "a\nb", "tab\t", "\x7f", "\xc2\x80", "\xc2\x9f", "\xff",
                          "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe6\x97"}) {
    INFO("group name bytes " << Catch::Detail::stringify(std::string(bad)));
    CHECK(echomq_check_group_name(bad) == ECHOMQ_EINVAL);
  }
}

TEST_CASE("echomq_check_name says why a name is refused, with a cut name and its length", "[names]") {
  char why[256];
  auto check = [&](int kind, const std::string &name) {
    return echomq_check_name(kind, name.data(), name.size(), why, sizeof why);
  };
  CHECK(check(ECHOMQ_NAME_GROUP, "acme/u1") == ECHOMQ_OK);
  CHECK(std::string(why).empty());
  CHECK(check(ECHOMQ_NAME_GROUP, "acme/") == ECHOMQ_OK);
  CHECK(check(ECHOMQ_NAME_LANE, "acme/") == ECHOMQ_EINVAL);
  CHECK(std::string(why) == "'acme/' names a tenant, not a lane (a tenant's lanes are 'acme/<lane>')");
  CHECK(check(ECHOMQ_NAME_GROUP, "/x") == ECHOMQ_EINVAL);
  CHECK(std::string(why).find("'/x' has an empty tenant part") != std::string::npos);
  for (const char *more : {"a//b", "a/b/", "a/b/c"}) {
    INFO(more);
    CHECK(check(ECHOMQ_NAME_GROUP, more) == ECHOMQ_EINVAL);
    CHECK(std::string(why).find("holds more than one '/'") != std::string::npos);
  }
  const std::string big(300, 'x');
  CHECK(check(ECHOMQ_NAME_LANE, big) == ECHOMQ_EINVAL);
  CHECK(std::string(why) == "group name '" + std::string(32, 'x') + "...' is 300 bytes long, over the 256-byte limit");
  CHECK(check(ECHOMQ_NAME_GROUP, std::string("a\0b", 3)) == ECHOMQ_EINVAL);
  CHECK(std::string(why) == "group name 'a\\x00b' contains a NUL byte");
  CHECK(check(ECHOMQ_NAME_QUEUE, "bad name") == ECHOMQ_EINVAL);
  CHECK(std::string(why) == "queue name 'bad name' may hold only A-Z a-z 0-9 _ . - (found ' ')");
  // A small buffer gets a cut message; none at all, only the status.
  CHECK(echomq_check_name(ECHOMQ_NAME_GROUP, "/", 1, why, 8) == ECHOMQ_EINVAL);
  CHECK(std::string(why) == "group n");
  CHECK(echomq_check_name(ECHOMQ_NAME_GROUP, "/", 1, nullptr, 0) == ECHOMQ_EINVAL);
  CHECK(echomq_check_name(99, "x", 1, why, sizeof why) == ECHOMQ_EINVAL);
  // The calls that take the name give the same message.
  auto c = connect_client();
  CHECK(echomq_enqueue(c.get(), "names-q", "a//b", "p", 1, nullptr, nullptr) == ECHOMQ_EINVAL);
  CHECK(check(ECHOMQ_NAME_LANE, "a//b") == ECHOMQ_EINVAL);
  CHECK(std::string(echomq_client_errmsg(c.get())).find(why) != std::string::npos);
}
