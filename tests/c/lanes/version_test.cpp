// Version and static text: the run-time library matches the header it was
// built from, and every status has a text.
#include "test_env.hpp"

#include <cstdio>
#include <cstring>

TEST_CASE("the run-time version matches the header", "[version]") {
  CHECK(echomq_version() == ECHOMQ_VERSION_NUMBER);
  char expected[32];
  std::snprintf(expected, sizeof expected, "%d.%d.%d", ECHOMQ_VERSION_MAJOR,
                ECHOMQ_VERSION_MINOR, ECHOMQ_VERSION_PATCH);
  REQUIRE(echomq_version_string() != nullptr);
  CHECK(std::string(echomq_version_string()) == expected);
}

TEST_CASE("every status code has its own text, unknown codes too", "[version]") {
  const int codes[] = {ECHOMQ_OK,       ECHOMQ_EMPTY,   ECHOMQ_EINVAL,   ECHOMQ_ETOOLARGE,
                       ECHOMQ_ENOTFOUND, ECHOMQ_ESTALE, ECHOMQ_ECONN,    ECHOMQ_ETIMEOUT,
                       ECHOMQ_ECANCELED, ECHOMQ_ETLS,  ECHOMQ_ESERVER, ECHOMQ_ENOPERM, ECHOMQ_EPROTO,
                       ECHOMQ_ENOMEM,   ECHOMQ_EINTERNAL};
  std::vector<std::string> texts;
  for (int code : codes) {
    const char *text = echomq_strerror(code);
    REQUIRE(text != nullptr);
    CHECK(std::strlen(text) > 0);
    for (const auto &seen : texts) CHECK(seen != text);
    texts.emplace_back(text);
  }
  REQUIRE(echomq_strerror(12345) != nullptr);
  REQUIRE(echomq_strerror(-12345) != nullptr);
}

TEST_CASE("option structs initialise to the documented defaults", "[version]") {
  echomq_client_options c{};
  REQUIRE(echomq_client_options_init(&c, ECHOMQ_CLIENT_OPTIONS_VERSION) == ECHOMQ_OK);
  const echomq_client_options macro = ECHOMQ_CLIENT_OPTIONS_INIT;
  CHECK(c.version == macro.version);
  CHECK(c.connect_timeout_ms == macro.connect_timeout_ms);
  CHECK(c.command_timeout_ms == macro.command_timeout_ms);
  CHECK(c.max_payload_bytes == static_cast<size_t>(ECHOMQ_DEFAULT_MAX_PAYLOAD));
  CHECK(c.wait_replicas == 0);  // no durability wait unless asked for
  CHECK(c.wait_aof == 0);
  CHECK(c.wait_timeout_ms == macro.wait_timeout_ms);
  CHECK(macro.wait_timeout_ms == 1000);

  echomq_enqueue_options e{};
  REQUIRE(echomq_enqueue_options_init(&e, ECHOMQ_ENQUEUE_OPTIONS_VERSION) == ECHOMQ_OK);
  CHECK(e.version == ECHOMQ_ENQUEUE_OPTIONS_VERSION);
  CHECK(e.delay_ms == 0);
  CHECK(e.max_attempts == 0);
}

TEST_CASE("a successful call clears the last error of the handle", "[version]") {
  auto c = emqtest::connect_client();
  const std::string q = emqtest::fresh_queue("errmsg");
  CHECK(echomq_ack(c.get(), q.c_str(), 12345, 1) == ECHOMQ_ENOTFOUND);
  CHECK(echomq_client_errcode(c.get()) == ECHOMQ_ENOTFOUND);
  CHECK(std::string(echomq_client_errmsg(c.get())) != "");
  CHECK(echomq_set_weight(c.get(), q.c_str(), "g", 0) == ECHOMQ_EINVAL);
  CHECK(echomq_client_errcode(c.get()) == ECHOMQ_EINVAL);
  EMQ_REQUIRE_OK(c.get(), echomq_client_ping(c.get()));
  CHECK(echomq_client_errcode(c.get()) == ECHOMQ_OK);
  CHECK(std::string(echomq_client_errmsg(c.get())) == "");
  // EMPTY is not an error: the message stays empty.
  echomq_job *job = nullptr;
  CHECK(echomq_claim(c.get(), q.c_str(), 1000, &job) == ECHOMQ_EMPTY);
  CHECK(std::string(echomq_client_errmsg(c.get())) == "");
  emqtest::require_verified(c.get(), q);
}
