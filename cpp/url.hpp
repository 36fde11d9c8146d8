// Server addresses: valkey://[user[:password]@]host[:port][/db] (also
// redis://), with TLS valkeys://...[?ca=&cert=&key=&sni=&verify=none] (also
// rediss://), and unix://[user[:password]@]/path/to/socket[?db=N].
#pragma once

#include <string>

#include "tls.hpp"

namespace echomq {

struct Endpoint {
  bool unix_socket = false;
  std::string host;   // TCP host (IPv6 literal without brackets)
  int port = 6379;
  std::string path;   // unix socket path
  std::string user;   // empty = default user
  std::string password;
  bool has_password = false;
  int db = 0;
  TlsSettings tls;    // tls.on for valkeys:// and rediss://
};

// Throws EINVAL with a message naming what is wrong. No I/O.
Endpoint parseUrl(const std::string& url);

}  // namespace echomq
