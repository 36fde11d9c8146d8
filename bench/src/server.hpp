// server.hpp — the benchmark's own valkey-server, and the housekeeping
// connection (FLUSHALL, INFO, DBSIZE) that is not an EchoMQ operation.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

struct redisContext;

namespace bench {

/// A throwaway valkey-server on a free loopback port, persistence off,
/// stopped and its directory removed by the destructor.
class OwnServer {
 public:
  OwnServer() = default;
  ~OwnServer() { stop(); }
  OwnServer(const OwnServer &) = delete;
  OwnServer &operator=(const OwnServer &) = delete;

  /// Appended to the command line by start() (e.g. {"--appendonly", "yes"}).
  std::vector<std::string> extra_args;

  /// Starts `binary` (VALKEY_SERVER or "valkey-server" on PATH); false with a
  /// message on stderr if it does not answer within a few seconds.
  bool start();
  void stop();
  const std::string &url() const { return url_; }
  std::string version() const { return version_; }

 private:
  pid_t pid_ = -1;
  std::string dir_, url_, version_;
};

/// Where a URL points, as hiredis needs it (valkey://, redis:// or unix://).
struct Endpoint {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string unix_path;
  std::string user, password;
  int db = 0;
};

/// Parses the URL forms of echomq_client_connect; false if it cannot.
bool parse_url(const std::string &url, Endpoint *out);

/// A plain hiredis connection for housekeeping and for the floor.
class Admin {
 public:
  explicit Admin(const std::string &url);
  ~Admin();
  Admin(const Admin &) = delete;
  Admin &operator=(const Admin &) = delete;
  bool connected() const { return ctx_ != nullptr; }
  redisContext *ctx() const { return ctx_; }

  bool flushall();
  int64_t dbsize();
  /// used_memory from INFO memory, or -1.
  int64_t used_memory();
  /// used_cpu_user + used_cpu_sys of the server process (INFO cpu), or -1.
  double cpu_seconds();
  /// CONFIG RESETSTAT: zeroes INFO commandstats; false on error.
  bool reset_stats();
  /// µs the server spent in script calls (FCALL, EVALSHA, EVALSHA_RO) since
  /// the last reset_stats, from INFO commandstats: a script's own commands
  /// are counted inside its call, the network and the client are not; -1
  /// on error.
  double script_usec();
  /// A field of INFO server ("valkey_version", ...), or "".
  std::string info_field(const std::string &section, const std::string &field);

 private:
  redisContext *ctx_ = nullptr;
};

/// A loopback TCP port that nothing listens on now (bound, then released); -1 on error.
int free_port();

/// Opens a hiredis context for a URL (AUTH and SELECT done); nullptr on error.
redisContext *open_context(const std::string &url);

}  // namespace bench
