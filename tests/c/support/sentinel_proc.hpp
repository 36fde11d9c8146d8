// A real Sentinel (valkey-sentinel, or $VALKEY_SENTINEL) of a test's own on a
// free loopback port, with a configuration written at start: it monitors one
// primary with quorum 1, calls it down after down_after_ms and may fail it
// over at once. Stopped by its own PID (and its directory removed) when
// destroyed.
#pragma once

#include <string>

namespace emqtest {

class PrivateServer;

/// Starts `primary`, `r1` and `r2`, makes the two replicas of the first and
/// returns once both have its writes: the servers a Sentinel test fails over.
void start_primary_and_replicas(PrivateServer &primary, PrivateServer &r1, PrivateServer &r2);

class SentinelProc {
 public:
  /// `extra` lines go at the end of the configuration (requirepass, auth-pass).
  SentinelProc(const std::string &name, int primary_port, const std::string &extra = std::string(),
               int down_after_ms = 1000);
  ~SentinelProc();
  SentinelProc(const SentinelProc &) = delete;
  SentinelProc &operator=(const SentinelProc &) = delete;

  int port() const { return port_; }
  /// The port of the primary this Sentinel names now (0 if none).
  int primary_port();
  /// Waits until the Sentinel knows `replicas` healthy replicas of the
  /// primary (it then may promote one of them).
  void wait_for_replicas(int replicas, int64_t ms);
  /// SENTINEL SET of one option of the monitored primary (down-after-milliseconds, ...).
  void set(const std::string &option, const std::string &value);

 private:
  std::string name_;
  int port_;
  std::string dir_;
  long pid_ = 0;
};

}  // namespace emqtest
