// The byte stream under a connection: a TCP or unix socket, with OpenSSL on
// top for a TLS endpoint. Every read and write of the library goes through
// here; hiredis only formats commands and parses replies (redisReader).
// Blocking socket, timeouts by SO_RCVTIMEO/SO_SNDTIMEO. Writes never raise
// SIGPIPE: plain sends use MSG_NOSIGNAL, and TLS records go out through a
// BIO of our own that sends with MSG_NOSIGNAL too (OpenSSL's socket BIO
// writes with write(2)). Not shared between threads, except interrupt().
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>

#include "tls.hpp"
#include "url.hpp"

typedef struct ssl_st SSL;

namespace echomq {

class Transport {
 public:
  // Connects to ep within connect_ms (name resolution, TCP connect and the
  // TLS handshake each). Throws ECONN, ETIMEOUT, ETLS (handshake refused,
  // untrusted certificate, name mismatch: nothing was sent), ENOMEM.
  // ctx: tlsContext(ep.tls) for a TLS endpoint, else null.
  Transport(const Endpoint& ep, int connect_ms, std::shared_ptr<SSL_CTX> ctx);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  bool tls() const { return ssl_ != nullptr; }
  // Send and receive timeout of every later call. False if setsockopt failed.
  bool setTimeout(int ms);

  // Writes all n bytes. False on failure; then error() says why and
  // timedOut() whether the send timeout ran out.
  bool write(const char* p, size_t n);
  // Reads what is there (at least one byte): > 0 bytes read, or 0 on
  // failure or end of stream (error(), timedOut()).
  size_t read(char* p, size_t cap);

  const std::string& error() const { return why_; }
  bool timedOut() const { return timed_out_; }

  // Thread-safe: shuts the socket down, so a read blocked in it returns at
  // once (echomq_client_cancel). The transport is useless afterwards.
  void interrupt();

 private:
  void connectSocket(const Endpoint& ep, int connect_ms);
  void handshake(const Endpoint& ep, int connect_ms);
  void fromErrno(const char* what);
  void fromSsl(int rc, const char* what);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::shared_ptr<SSL_CTX> ctx_;
  std::string why_;
  bool timed_out_ = false;
};

// ep moved to host:port (a cluster redirect, another primary): credentials
// and TLS settings stay, the db is 0, and the name a certificate must carry
// is the new host (an sni= of the URL named the first server only).
Endpoint redirected(const Endpoint& ep, const std::string& host, int port);

// "host:port" or "unix:/path", for messages.
std::string endpointName(const Endpoint& ep);

}  // namespace echomq
