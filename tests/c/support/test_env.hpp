// Shared helpers for the Catch2 tests: where the test server is, RAII owners
// for the C API's handles, fresh queue names, and thin wrappers that turn a
// failed call into a test failure that shows the status and the message.
#pragma once

#include <echomq/echomq.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace emqtest {

using echomq::BatchPtr;
using echomq::ClientPtr;
using echomq::JobListPtr;
using echomq::JobPtr;
using echomq::LaneListPtr;
using echomq::ReportPtr;
using echomq::SettlePtr;
using echomq::WorkerPtr;
using echomq::EventListPtr;

/// URL of the test server: $ECHOMQ_TEST_URL if set, else the first line of the
/// file named by $ECHOMQ_TEST_URL_FILE (written by the CTest fixture).
std::string server_url();

/// Host and port of server_url(), for the raw hiredis connection.
struct Endpoint {
  std::string host;
  int port = 6379;
  std::string password;  // empty = no AUTH
  std::string user;      // empty = default user
};
Endpoint server_endpoint();

/// The unix socket next to the URL file (the fixture's server listens on
/// one too), or "" when the URL comes from $ECHOMQ_TEST_URL.
std::string server_socket_path();

/// A loopback TCP port that nothing listens on now (bound, then released).
int free_port();

/// A valkey-server of a test's own on a fixed port, for tests that stop and
/// restart a server. Stopped (and its directory removed) when destroyed.
class PrivateServer {
 public:
  /// `extra` is appended to the valkey-server command line (e.g.
  /// "--maxmemory 4mb"); the data directory survives stop() and start().
  explicit PrivateServer(int port, std::string extra = std::string());
  ~PrivateServer();
  PrivateServer(const PrivateServer &) = delete;
  PrivateServer &operator=(const PrivateServer &) = delete;
  /// Starts it and waits until it accepts connections.
  void start();
  /// Kills it (SIGKILL, like a crash) and waits until the port is closed.
  void stop();
  std::string url() const;
  int port() const { return port_; }
  const std::string &dir() const { return dir_; }

 private:
  int port_;
  std::string extra_;
  std::string dir_;
  bool running_ = false;
};

/// A new client handle connected to `url` (default: server_url()).
ClientPtr connect_client(const echomq_client_options *opts = nullptr,
                         const std::string &url = std::string());

/// A worker engine on `queue` at `url` (default: server_url()), created and
/// started (asserts both calls worked).
WorkerPtr start_worker(const std::string &queue, const echomq_worker_options &o,
                       const std::string &url = std::string());

/// The engine's figures (asserts the call worked).
echomq_worker_stats worker_stats(echomq_worker *w);

/// Enqueues jobs 0..n-1 (payload: the number) over `lanes` lanes L0, L1, ...
/// in one batch (asserts success).
void enqueue_spread(echomq_client *c, const std::string &queue, int n, int lanes);

/// A queue name that no other test (nor an earlier run) uses.
std::string fresh_queue(const std::string &tag);

/// Human-readable "<rc> (<strerror>): <errmsg>" for a failed call.
std::string describe(echomq_client *c, int rc);

/// Asserts that echomq_verify finds no violation on `queue`; prints them if it does.
void require_verified(echomq_client *c, const std::string &queue);

/// The violation lines echomq_verify reports for `queue` (asserts the call worked).
std::vector<std::string> violations(echomq_client *c, const std::string &queue);

/// Enqueues one job (asserts success) and returns its id.
uint64_t enqueue(echomq_client *c, const std::string &queue, const std::string &group,
                 const std::string &payload, const echomq_enqueue_options *opts = nullptr);

/// The job `id` as echomq_get_job looks it up (asserts the call worked).
JobPtr get_job(echomq_client *c, const std::string &queue, uint64_t id);

/// Claims one job; nullptr when the queue reports ECHOMQ_EMPTY. Any other
/// status fails the test.
JobPtr claim(echomq_client *c, const std::string &queue, int64_t lease_ms);

/// Weighted claim; nullptr when the queue reports ECHOMQ_EMPTY.
JobListPtr wclaim(echomq_client *c, const std::string &queue, int64_t lease_ms, uint32_t max);

/// Acknowledges a claimed job (asserts success).
void ack(echomq_client *c, const std::string &queue, const echomq_job *job);

echomq_queue_stats stats(echomq_client *c, const std::string &queue);
echomq_lane_info lane(echomq_client *c, const std::string &queue, const std::string &group);

/// The payload of a job as a string.
std::string payload_of(const echomq_job *job);

/// Milliseconds on the local monotonic clock (for measuring waits only;
/// the queue's own times are the server's).
int64_t mono_ms();

/// Sleeps the calling thread.
void sleep_ms(int64_t ms);

}  // namespace emqtest

/// REQUIREs that `expr` (an echomq call on client `c`) returns ECHOMQ_OK,
/// showing the status and the client's message otherwise.
#define EMQ_REQUIRE_OK(c, expr)                                              \
  do {                                                                       \
    const int emq_rc_ = (expr);                                              \
    INFO(#expr << " -> " << ::emqtest::describe((c), emq_rc_));              \
    REQUIRE(emq_rc_ == ECHOMQ_OK);                                           \
  } while (0)

/// REQUIREs that `expr` returns exactly `status`.
#define EMQ_REQUIRE_STATUS(c, status, expr)                                  \
  do {                                                                       \
    const int emq_rc_ = (expr);                                              \
    INFO(#expr << " -> " << ::emqtest::describe((c), emq_rc_)                \
               << ", expected " << #status);                                 \
    REQUIRE(emq_rc_ == (status));                                            \
  } while (0)
