// A plain hiredis connection to the test server, used ONLY to look at the
// server (keyspace and traffic snapshots) or to disturb it (SCRIPT FLUSH,
// CLIENT KILL, CLIENT PAUSE, deliberate corruption). Queue operations always
// go through the library.
#pragma once

#include <hiredis/hiredis.h>
#include <hiredis_ptr.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace emqtest {

using echomq::ReplyPtr;

/// Every key of the current db mapped to its type, TTL presence and DUMP.
using Keyspace = std::map<std::string, std::string>;

/// Bytes each other client has sent to the server (CLIENT LIST tot-net-in),
/// by client id. A server without per-client counters (Redis 7.0) gives
/// every other client 0 and the bytes of all of them together under
/// kAllOthers.
using Traffic = std::map<long long, long long>;
constexpr long long kAllOthers = -1;

class RawValkey {
 public:
  /// Connects to the test server (fails the test if it cannot).
  RawValkey();
  /// Connects to another server of the test's own (no AUTH).
  RawValkey(const std::string &host, int port);
  /// Connects to a server of the test's own by its unix socket (a TLS
  /// server's plain side: hiredis 0.14 has no TLS).
  explicit RawValkey(const std::string &unix_path);
  ~RawValkey();
  RawValkey(const RawValkey &) = delete;
  RawValkey &operator=(const RawValkey &) = delete;

  /// Runs one command (argv-style, binary-safe); fails the test on an I/O error.
  ReplyPtr command(const std::vector<std::string> &argv);
  /// Runs a command that must not answer with an error.
  ReplyPtr must(const std::vector<std::string> &argv);
  /// Runs a command that must answer with an integer.
  long long integer(const std::vector<std::string> &argv);

  /// This connection's CLIENT ID.
  long long id() const { return id_; }

  /// Every key of db 0 (or only those starting with `prefix`), with its value.
  Keyspace snapshot(const std::string &prefix = std::string());
  /// The keys of one queue (`emq:{queue}:...`).
  Keyspace queue_snapshot(const std::string &queue) { return snapshot("emq:{" + queue + "}:"); }
  Traffic traffic();

  /// Ids of the other normal clients connected now.
  std::vector<long long> other_clients();

 private:
  /// A key's value in a form that does not depend on its encoding.
  std::string content(const std::string &key, const std::string &type);

  redisContext *ctx_ = nullptr;
  long long id_ = 0;
  long long sent_ = 0;  // bytes of every command this connection sent
};

/// A readable list of the keys that differ between two snapshots ("" if none).
std::string keyspace_diff(const Keyspace &before, const Keyspace &after);

/// A readable list of clients whose traffic grew or that are new ("" if none).
std::string traffic_diff(const Traffic &before, const Traffic &after);

}  // namespace emqtest
