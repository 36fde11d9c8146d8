#include "transport.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>

#include "error.hpp"

namespace echomq {
namespace {

// OpenSSL's socket BIO writes with write(2), which raises SIGPIPE on a
// connection the peer closed. This BIO is that one with send(MSG_NOSIGNAL):
// no signal, no process-wide SIG_IGN, no per-thread signal mask.
int fdOf(BIO* b) { return static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(b))); }

int bioWrite(BIO* b, const char* p, int n) {
  BIO_clear_retry_flags(b);
  for (;;) {
    const ssize_t w = ::send(fdOf(b), p, static_cast<size_t>(n), MSG_NOSIGNAL);
    if (w >= 0) return static_cast<int>(w);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(b);
    return -1;
  }
}

int bioRead(BIO* b, char* p, int n) {
  BIO_clear_retry_flags(b);
  for (;;) {
    const ssize_t r = ::recv(fdOf(b), p, static_cast<size_t>(n), 0);
    if (r >= 0) return static_cast<int>(r);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_read(b);
    return -1;
  }
}

int bioPuts(BIO* b, const char* s) { return bioWrite(b, s, static_cast<int>(std::strlen(s))); }

long bioCtrl(BIO*, int cmd, long, void*) { return cmd == BIO_CTRL_FLUSH ? 1 : 0; }

int bioCreate(BIO* b) {
  BIO_set_init(b, 1);
  return 1;
}

int bioDestroy(BIO*) { return 1; }  // the Transport closes the socket

BIO_METHOD* bioMethod() {
  static BIO_METHOD* m = [] {
    BIO_METHOD* bm = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR,
                                  "echomq socket");
    if (bm) {
      BIO_meth_set_write(bm, bioWrite);
      BIO_meth_set_read(bm, bioRead);
      BIO_meth_set_puts(bm, bioPuts);
      BIO_meth_set_ctrl(bm, bioCtrl);
      BIO_meth_set_create(bm, bioCreate);
      BIO_meth_set_destroy(bm, bioDestroy);
    }
    return bm;
  }();
  return m;
}

timeval toTimeval(int ms) {
  timeval tv;
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

bool isIpLiteral(const std::string& h) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, h.c_str(), buf) == 1 || inet_pton(AF_INET6, h.c_str(), buf) == 1;
}

// Connects fd to addr within ms; 0 or an errno value.
int connectWithin(int fd, const sockaddr* addr, socklen_t len, int ms) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return errno;
  int err = 0;
  if (::connect(fd, addr, len) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int rc;
      do rc = ::poll(&p, 1, ms);
      while (rc < 0 && errno == EINTR);
      if (rc == 0) return ETIMEDOUT;
      if (rc < 0) return errno;
      socklen_t n = sizeof err;
      if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &n) != 0) err = errno;
    }
  }
  if (err == 0 && fcntl(fd, F_SETFL, flags) < 0) err = errno;
  return err;
}

[[noreturn]] void connectFailed(const Endpoint& ep, int err, const std::string& why) {
  fail(err == ETIMEDOUT ? kTimeout : kConn, "cannot connect to " + endpointName(ep) + ": " + why);
}

}  // namespace

Endpoint redirected(const Endpoint& ep, const std::string& host, int port) {
  Endpoint to = ep;
  to.unix_socket = false;
  to.host = host;
  to.port = port;
  to.db = 0;
  to.tls.sni.clear();
  to.sentinel.reset();  // a node reached at its own address
  return to;
}

std::string endpointName(const Endpoint& ep) {
  if (ep.unix_socket) return "unix:" + ep.path;
  const bool v6 = ep.host.find(':') != std::string::npos;
  return (v6 ? "[" + ep.host + "]" : ep.host) + ":" + std::to_string(ep.port);
}

Transport::Transport(const Endpoint& ep, int connect_ms, std::shared_ptr<SSL_CTX> ctx)
    : ctx_(std::move(ctx)) {
  try {
    connectSocket(ep, connect_ms);
    if (ctx_) handshake(ep, connect_ms);
  } catch (...) {
    if (ssl_) SSL_free(ssl_);
    if (fd_ >= 0) ::close(fd_);
    throw;
  }
}

Transport::~Transport() {
  if (ssl_) SSL_free(ssl_);  // frees the BIO, which leaves the socket alone
  if (fd_ >= 0) ::close(fd_);
}

void Transport::connectSocket(const Endpoint& ep, int connect_ms) {
  if (ep.unix_socket) {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (ep.path.size() >= sizeof sa.sun_path) connectFailed(ep, EINVAL, "socket path too long");
    std::memcpy(sa.sun_path, ep.path.c_str(), ep.path.size() + 1);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) connectFailed(ep, errno, std::strerror(errno));
    const int err = connectWithin(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa, connect_ms);
    if (err != 0) connectFailed(ep, err, std::strerror(err));
    return;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const std::string port = std::to_string(ep.port);
  const int gai = getaddrinfo(ep.host.c_str(), port.c_str(), &hints, &list);
  if (gai != 0) connectFailed(ep, EHOSTUNREACH, std::string("cannot resolve the host: ") + gai_strerror(gai));
  int err = EHOSTUNREACH;
  for (addrinfo* a = list; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    err = connectWithin(fd, a->ai_addr, a->ai_addrlen, connect_ms);
    if (err == 0) {
      fd_ = fd;
      break;
    }
    ::close(fd);
  }
  freeaddrinfo(list);
  if (fd_ < 0) connectFailed(ep, err, std::strerror(err));
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // commands are small
}

void Transport::handshake(const Endpoint& ep, int connect_ms) {
  const std::string who = endpointName(ep);
  ERR_clear_error();
  ssl_ = SSL_new(ctx_.get());
  BIO* bio = bioMethod() ? BIO_new(bioMethod()) : nullptr;
  if (!ssl_ || !bio) {
    BIO_free(bio);
    fail(kNoMem, "cannot create a TLS session: " + sslReason());
  }
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<intptr_t>(fd_)));
  SSL_set_bio(ssl_, bio, bio);
  // The name checked against the certificate, and sent as SNI (which a
  // literal IP address never is).
  const std::string& name = ep.tls.sni.empty() ? ep.host : ep.tls.sni;
  const bool ip = isIpLiteral(name);
  if (!ip && SSL_set_tlsext_host_name(ssl_, name.c_str()) != 1)
    fail(kInvalid, "TLS: bad server name '" + name + "': " + sslReason());
  if (ep.tls.verify) {
    const int ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), name.c_str())
                      : SSL_set1_host(ssl_, name.c_str());
    if (ok != 1) fail(kInvalid, "TLS: cannot check the server name '" + name + "': " + sslReason());
    SSL_set_hostflags(ssl_, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  }
  if (!setTimeout(connect_ms)) fail(kConn, "cannot set the socket timeout for " + who);
  const int rc = SSL_connect(ssl_);
  if (rc == 1) return;
  const int e = SSL_get_error(ssl_, rc);
  const int sys = errno;
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
    fail(kTimeout, "TLS handshake with " + who + ": no answer within " + std::to_string(connect_ms) + " ms");
  std::string why = sslReason();
  const long vr = SSL_get_verify_result(ssl_);
  if (vr != X509_V_OK) {
    why = "the server's certificate is not trusted (" + std::string(X509_verify_cert_error_string(vr)) +
          (vr == X509_V_ERR_HOSTNAME_MISMATCH || vr == X509_V_ERR_IP_ADDRESS_MISMATCH
               ? ": it is not for '" + name + "'"
               : "") +
          ")";
  } else if (why.empty()) {
    why = e == SSL_ERROR_SYSCALL && sys != 0 ? std::strerror(sys)
                                             : "the server closed the connection (is it a TLS port?)";
  }
  fail(kTls, "TLS handshake with " + who + " failed: " + why + "; nothing was sent");
}

bool Transport::setTimeout(int ms) {
  const timeval tv = toTimeval(ms);
  return setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0 &&
         setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0;
}

void Transport::fromErrno(const char* what) {
  const int e = errno;
  timed_out_ = e == EAGAIN || e == EWOULDBLOCK;
  why_ = timed_out_ ? std::string(what) + " timed out" : std::strerror(e);
}

void Transport::fromSsl(int rc, const char* what) {
  const int e = SSL_get_error(ssl_, rc);
  const int sys = errno;
  timed_out_ = e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
  std::string reason = sslReason();
  if (timed_out_) {
    why_ = std::string(what) + " timed out";
  } else if (e == SSL_ERROR_ZERO_RETURN) {
    why_ = "the server closed the TLS session";
  } else if (!reason.empty()) {
    why_ = "TLS: " + reason;
  } else {
    why_ = e == SSL_ERROR_SYSCALL && sys != 0 ? std::strerror(sys) : "the server closed the connection";
  }
}

bool Transport::write(const char* p, size_t n) {
  timed_out_ = false;
  size_t off = 0;
  while (off < n) {
    if (ssl_) {
      ERR_clear_error();
      const int chunk = static_cast<int>(std::min<size_t>(n - off, INT_MAX));
      const int w = SSL_write(ssl_, p + off, chunk);
      if (w <= 0) {
        fromSsl(w, "the send");
        return false;
      }
      off += static_cast<size_t>(w);
    } else {
      const ssize_t w = ::send(fd_, p + off, n - off, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        if (w == 0) errno = EPIPE;
        fromErrno("the send");
        return false;
      }
      off += static_cast<size_t>(w);
    }
  }
  return true;
}

size_t Transport::read(char* p, size_t cap) {
  timed_out_ = false;
  if (ssl_) {
    ERR_clear_error();
    const int r = SSL_read(ssl_, p, static_cast<int>(std::min<size_t>(cap, INT_MAX)));
    if (r > 0) return static_cast<size_t>(r);
    fromSsl(r, "the read");
    return 0;
  }
  for (;;) {
    const ssize_t r = ::recv(fd_, p, cap, 0);
    if (r > 0) return static_cast<size_t>(r);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      why_ = "the server closed the connection";
      return 0;
    }
    fromErrno("the read");
    return 0;
  }
}

void Transport::interrupt() { ::shutdown(fd_, SHUT_RDWR); }

}  // namespace echomq
