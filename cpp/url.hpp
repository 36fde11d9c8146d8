// Server addresses: valkey://[user[:password]@]host[:port][/db] (also
// redis://), with TLS valkeys://...[?ca=&cert=&key=&sni=&verify=none] (also
// rediss://), and unix://[user[:password]@]/path/to/socket[?db=N]; a primary
// found through Sentinel: cpp/sentinel.hpp.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tls.hpp"

namespace echomq {

struct Sentinels {
  std::vector<std::pair<std::string, int>> nodes;  // host, port, in the URL's order
  std::string primary;                             // the monitored primary's name
  std::string user, password;                      // AUTH to the Sentinels
  bool has_password = false;
};

struct Endpoint {
  bool unix_socket = false;
  std::string host;   // TCP host (IPv6 literal without brackets)
  int port = 6379;
  std::string path;   // unix socket path
  std::string user;   // empty = default user
  std::string password;
  bool has_password = false;
  int db = 0;
  // Set for a +sentinel URL: the primary is asked of these Sentinels at
  // every connect (cpp/sentinel.hpp); host and port above are then only
  // the first Sentinel's. Shared: endpoints are copied per connection.
  std::shared_ptr<const Sentinels> sentinel;
  TlsSettings tls;    // tls.on for valkeys:// and rediss://
};

// Throws EINVAL with a message naming what is wrong. No I/O.
Endpoint parseUrl(const std::string& url);
// Percent-decoding of one URL part (EINVAL on a broken escape).
std::string urlUnescape(const std::string& s);

}  // namespace echomq
