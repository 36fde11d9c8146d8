// TLS settings of a connection and the OpenSSL contexts built from them.
// The settings come from a valkeys:// or rediss:// URL's query and from the
// client options (the URL wins field by field: mergeTls). A context loads
// its files once: contexts are shared between connections with the same
// settings and rebuilt when a file changes on disk (a rotated certificate
// is picked up by the next connection).
#pragma once

#include <memory>
#include <string>

typedef struct ssl_ctx_st SSL_CTX;

namespace echomq {

struct TlsSettings {
  bool on = false;          // a TLS scheme (valkeys://, rediss://)
  std::string ca;           // CA file (PEM) or directory; empty = the system store
  std::string cert;         // client certificate chain (PEM)
  std::string key;          // its private key (PEM); empty = in the cert file
  std::string sni;          // name sent and checked; empty = the host
  bool verify = true;       // false only with verify=none: tests only
  bool verify_given = false;  // the URL said verify=...: it wins over the options
};

// Fills what the URL's settings leave out from the options' settings.
// Throws EINVAL when the options set TLS fields for a URL without TLS.
void mergeTls(TlsSettings& url, const TlsSettings& options);

// True when any field of the options is set (a TLS option was given).
bool anyTls(const TlsSettings& s);

// The context for s (s.on): the CA, certificate and key loaded and checked.
// Throws EINVAL naming the file that is missing, unreadable or broken, or
// a key that does not match its certificate. No network I/O.
std::shared_ptr<SSL_CTX> tlsContext(const TlsSettings& s);

// OpenSSL's reason for this thread's last failure ("" if none), and its
// error queue emptied.
std::string sslReason();

}  // namespace echomq
