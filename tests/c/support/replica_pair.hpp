// A primary and a replica of it on loopback, the replication link running
// through a TcpProxy so that a test can cut it (failover and durability tests).
#pragma once

#include "raw_valkey.hpp"
#include "tcp_proxy.hpp"
#include "test_env.hpp"

#include <memory>
#include <string>

namespace emqtest {

class ReplicaPair {
 public:
  /// Starts both servers (`primary_extra` goes on the primary's command
  /// line), makes the replica follow the primary through the proxy and
  /// waits until it has synced.
  explicit ReplicaPair(const std::string &primary_extra = std::string());

  PrivateServer primary;
  PrivateServer replica;
  TcpProxy link;  // primary <- replica; link.partition() cuts it
  RawValkey &praw() { return *praw_; }
  RawValkey &rraw() { return *rraw_; }

 private:
  std::unique_ptr<RawValkey> praw_, rraw_;
};

}  // namespace emqtest
