// Fuzzes input validation, the code that stands between a caller's bytes
// and the server: queue and group name checks, URL parsing, and the range
// and option checks of every call. Besides the sanitizers (ASan, UBSan), it
// checks properties an independent oracle can state:
// - a queue name is accepted exactly when it is 1..128 bytes of [A-Za-z0-9_.-];
// - an accepted group name is 1..256 bytes with no C0 control byte or DEL,
//   and the C API and the core agree on it;
// - a parsed URL names a host with a port in 1..65535, or a socket path;
// - a call on a client that was never connected either refuses its input
//   (EINVAL, ETOOLARGE) or gets as far as "not connected" (ECONN), never
//   anything else, and always leaves a message.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "echomq/echomq.h"
#include "error.hpp"
#include "url.hpp"
#include "validate.hpp"

namespace {

[[noreturn]] void broken(const char *what, const std::string &input) {
  std::fprintf(stderr, "property broken: %s (input of %zu bytes)\n", what, input.size());
  std::abort();
}

bool queueOracle(const std::string &s) {
  if (s.empty() || s.size() > ECHOMQ_QUEUE_NAME_MAX) return false;
  for (unsigned char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.' || c == '-'))
      return false;
  return true;
}

void fuzzQueueName(const std::string &s) {
  const int rc = echomq_check_queue_name(s.c_str());
  if (rc != ECHOMQ_OK && rc != ECHOMQ_EINVAL) broken("queue check status", s);
  // A NUL ends the C string: the oracle sees what the check sees.
  if ((rc == ECHOMQ_OK) != queueOracle(std::string(s.c_str()))) broken("queue name oracle", s);
}

void fuzzGroupName(const std::string &s) {
  int core = ECHOMQ_OK;
  try {
    echomq::checkGroupBytes(s.data(), s.size());
  } catch (const echomq::Error &e) {
    core = e.code();
  }
  if (core != ECHOMQ_OK && core != ECHOMQ_EINVAL) broken("group check status", s);
  if (core == ECHOMQ_OK) {
    if (s.empty() || s.size() > ECHOMQ_GROUP_NAME_MAX) broken("group length accepted", s);
    for (unsigned char c : s)
      if (c < 0x20 || c == 0x7f) broken("group control byte accepted", s);
  }
  // Without embedded NULs the C API decides exactly as the core does.
  if (s.find('\0') == std::string::npos && (echomq_check_group_name(s.c_str()) == ECHOMQ_OK) != (core == ECHOMQ_OK))
    broken("C API and core disagree on a group name", s);
}

void fuzzUrl(const std::string &s) {
  try {
    const echomq::Endpoint ep = echomq::parseUrl(s);
    if (ep.unix_socket ? ep.path.empty() : (ep.host.empty() || ep.port < 1 || ep.port > 65535))
      broken("accepted URL without an address", s);
    if (ep.db < 0) broken("negative db", s);
    if (!ep.tls.on && (!ep.tls.ca.empty() || !ep.tls.cert.empty() || !ep.tls.key.empty() ||
                       !ep.tls.sni.empty() || !ep.tls.verify))
      broken("TLS parameter accepted without TLS", s);
  } catch (const echomq::Error &e) {
    if (e.code() != ECHOMQ_EINVAL) broken("URL refusal status", s);
  }
}

void fuzzCalls(FuzzedDataProvider &in) {
  echomq_client_options o = ECHOMQ_CLIENT_OPTIONS_INIT;
  o.max_payload_bytes = in.ConsumeIntegralInRange<size_t>(1, 4096);
  echomq_client *c = nullptr;
  if (echomq_client_new(&c, &o) != ECHOMQ_OK) std::abort();
  const std::string queue = in.ConsumeRandomLengthString(140);
  const std::string group = in.ConsumeRandomLengthString(300);
  const std::string payload = in.ConsumeRandomLengthString(5000);
  const int64_t n1 = in.ConsumeIntegral<int64_t>();
  const int64_t n2 = in.ConsumeIntegral<int64_t>();
  const uint32_t u = in.ConsumeIntegral<uint32_t>();
  const uint64_t id = in.ConsumeIntegral<uint64_t>();
  const uint64_t token = in.ConsumeIntegral<uint64_t>();
  const size_t count = in.ConsumeIntegralInRange<size_t>(0, 20000);
  std::vector<uint64_t> ids(in.ConsumeIntegralInRange<size_t>(0, 4), id);
  echomq_enqueue_options eo = ECHOMQ_ENQUEUE_OPTIONS_INIT;
  eo.delay_ms = n1;
  eo.max_attempts = u;
  echomq_job *job = nullptr;
  echomq_job_list *jobs = nullptr;
  echomq_lane_list *lanes = nullptr;
  int st = 0;
  size_t acked = 0;
  uint64_t moved = 0;
  const char *q = queue.c_str();
  const char *g = group.c_str();
  // Where every argument of a call can be judged here, `bad` says whether
  // the call must refuse it (EINVAL) or get as far as the network (ECONN);
  // the limits come from echomq.h, the one place that states them.
  const bool qok = queueOracle(std::string(q));
  const bool lease_bad = n1 < 1 || n1 > ECHOMQ_LEASE_MAX_MS;
  const bool job_bad = id == 0 || token == 0;
  // Settling calls also bound ids and tokens by ECHOMQ_ID_MAX (2^53 - 1).
  const bool settle_bad = job_bad || id > static_cast<uint64_t>(ECHOMQ_ID_MAX) ||
                          token > static_cast<uint64_t>(ECHOMQ_ID_MAX);
  int judged = -1;  // -1: not fully judged; else 1 = must be EINVAL, 0 = must be ECONN
  int rc = ECHOMQ_OK;
  switch (in.ConsumeIntegralInRange<int>(0, 13)) {
    case 0:
      rc = echomq_enqueue(c, q, g, payload.data(), payload.size(), &eo, nullptr);
      if (!qok || n1 < 0 || n1 > ECHOMQ_DELAY_MAX_MS || u > ECHOMQ_ATTEMPTS_MAX) judged = 1;
      break;
    case 1:
      rc = echomq_claim(c, q, n1, &job);
      judged = !qok || lease_bad;
      break;
    case 2:
      rc = echomq_wclaim(c, q, n1, u, &jobs);
      judged = !qok || lease_bad || u < 1 || u > ECHOMQ_WCLAIM_MAX;
      break;
    case 3:
      rc = echomq_bclaim(c, q, n1, n2, &job);
      judged = !qok || lease_bad || n2 < 1 || n2 > 24LL * 3600 * 1000;
      break;
    case 4:
      rc = echomq_ack(c, q, id, token);
      judged = !qok || settle_bad;
      break;
    case 5:
      rc = echomq_fail(c, q, id, token, payload.c_str(), n1, &st);
      judged = !qok || settle_bad ||
               (n1 != ECHOMQ_RETRY_BACKOFF && (n1 < 0 || n1 > ECHOMQ_DELAY_MAX_MS));
      break;
    case 6:
      rc = echomq_extend(c, q, id, token, n1, nullptr);
      judged = !qok || job_bad || lease_bad;
      break;
    case 7:
      rc = echomq_ack_many(c, q, ids.data(), ids.data(), ids.size(), nullptr, &acked);
      judged = !qok || ids.empty() || id == 0 || id > static_cast<uint64_t>(ECHOMQ_ID_MAX);
      break;
    case 8: rc = echomq_set_weight(c, q, g, u); break;
    case 9: rc = echomq_set_limit(c, q, g, u); break;
    case 10: rc = echomq_lanes(c, q, g, count, &lanes); break;
    case 11:
      rc = echomq_dead(c, q, id, count, &jobs);
      judged = !qok || count < 1 || count > 10000 || id > (1ULL << 53);
      break;
    case 12: rc = echomq_redrive(c, q, ids.data(), ids.size(), &moved); break;
    case 13:
      rc = echomq_ack_claim(c, q, id, token, n1, &job);
      judged = !qok || settle_bad || lease_bad;
      break;
  }
  if (rc != ECHOMQ_EINVAL && rc != ECHOMQ_ETOOLARGE && rc != ECHOMQ_ECONN) broken("call status", queue);
  if (judged == 1 && rc != ECHOMQ_EINVAL) broken("out-of-range argument not refused", queue);
  if (judged == 0 && rc != ECHOMQ_ECONN) broken("valid arguments refused", queue);
  if (echomq_client_errmsg(c)[0] == '\0') broken("refusal without a message", queue);
  if (job || jobs || lanes) broken("a refused call returned a handle", queue);
  echomq_client_free(c);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: fuzzQueueName(in.ConsumeRemainingBytesAsString()); break;
    case 1: fuzzGroupName(in.ConsumeRemainingBytesAsString()); break;
    case 2: fuzzUrl(in.ConsumeRemainingBytesAsString()); break;
    case 3: fuzzCalls(in); break;
  }
  return 0;
}
