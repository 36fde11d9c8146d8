// A loopback TCP proxy for tests that cut a link between two servers (a
// replica's link to its primary): it forwards bytes both ways until told to
// stop, then holds every connection open but silent, like a network partition.
#pragma once

#include <atomic>
#include <thread>

namespace emqtest {

class TcpProxy {
 public:
  /// Listens on a free loopback port and forwards to 127.0.0.1:target_port.
  explicit TcpProxy(int target_port);
  /// Closes every connection and stops the thread.
  ~TcpProxy();
  TcpProxy(const TcpProxy &) = delete;
  TcpProxy &operator=(const TcpProxy &) = delete;

  int port() const { return port_; }
  /// Stops forwarding: once it returns, nothing more crosses, in either
  /// direction, and no connection is closed (the ends see silence, not a reset).
  void partition();

 private:
  void run();
  bool pump(int from, int to);

  int target_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> forwarding_{true};
  std::atomic<bool> parked_{false};  // the thread saw forwarding_ false
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace emqtest
