#include "tls.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#include "error.hpp"

namespace echomq {
namespace {

std::string reason() {
  const std::string why = sslReason();
  return why.empty() ? std::string("unknown OpenSSL error") : why;
}

// "path" is there and readable, or EINVAL saying why not (before OpenSSL
// gets to word it less clearly).
void checkReadable(const std::string& what, const std::string& path, struct stat& st) {
  if (::stat(path.c_str(), &st) != 0 || ::access(path.c_str(), R_OK) != 0)
    invalid("TLS " + what + " '" + path + "': " + std::strerror(errno));
}

// Part of a context's cache key: the path and what it holds now.
std::string fileKey(const std::string& what, const std::string& path) {
  if (path.empty()) return what + "=;";
  struct stat st;
  checkReadable(what, path, st);
  return what + "=" + path + "@" + std::to_string(st.st_mtime) + "." +
         std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_size) + ";";
}

struct CtxDeleter {
  void operator()(SSL_CTX* c) const noexcept { SSL_CTX_free(c); }
};

std::shared_ptr<SSL_CTX> build(const TlsSettings& s) {
  ERR_clear_error();
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_client_method()), CtxDeleter());
  if (!ctx) fail(kNoMem, "cannot create a TLS context: " + reason());
  SSL_CTX* c = ctx.get();
  SSL_CTX_set_min_proto_version(c, TLS1_2_VERSION);
  SSL_CTX_set_mode(c, SSL_MODE_AUTO_RETRY);
  if (s.verify) {
    SSL_CTX_set_verify(c, SSL_VERIFY_PEER, nullptr);
    if (!s.ca.empty()) {
      struct stat st;
      checkReadable("CA", s.ca, st);
      const bool dir = S_ISDIR(st.st_mode);
      if (SSL_CTX_load_verify_locations(c, dir ? nullptr : s.ca.c_str(), dir ? s.ca.c_str() : nullptr) != 1)
        invalid("TLS CA '" + s.ca + "' cannot be loaded: " + reason());
    } else if (SSL_CTX_set_default_verify_paths(c) != 1) {
      invalid("the system's TLS trust store cannot be loaded: " + reason() +
              " (give the CA with ?ca=/path/ca.pem)");
    }
  } else {
    SSL_CTX_set_verify(c, SSL_VERIFY_NONE, nullptr);
  }
  if (!s.cert.empty()) {
    struct stat st;
    checkReadable("certificate", s.cert, st);
    if (SSL_CTX_use_certificate_chain_file(c, s.cert.c_str()) != 1)
      invalid("TLS certificate '" + s.cert + "' cannot be loaded: " + reason());
    const std::string& key = s.key.empty() ? s.cert : s.key;
    checkReadable("key", key, st);
    if (SSL_CTX_use_PrivateKey_file(c, key.c_str(), SSL_FILETYPE_PEM) != 1)
      invalid("TLS key '" + key + "' cannot be loaded, or does not match the certificate '" + s.cert +
              "': " + reason());
    if (SSL_CTX_check_private_key(c) != 1)
      invalid("TLS key '" + key + "' does not match the certificate '" + s.cert + "': " + reason());
  }
  return ctx;
}

}  // namespace

std::string sslReason() {
  const unsigned long e = ERR_peek_last_error();
  std::string why;
  if (e != 0) {
    const char* r = ERR_reason_error_string(e);
    why = r ? r : "OpenSSL error " + std::to_string(e);
  }
  ERR_clear_error();
  return why;
}

bool anyTls(const TlsSettings& s) {
  return !s.ca.empty() || !s.cert.empty() || !s.key.empty() || !s.sni.empty() || !s.verify;
}

void mergeTls(TlsSettings& url, const TlsSettings& options) {
  if (!url.on) {
    if (anyTls(options))
      invalid("TLS options are set but the URL is not a TLS one (valkeys:// or rediss://)");
    return;
  }
  if (url.ca.empty()) url.ca = options.ca;
  if (url.cert.empty()) url.cert = options.cert;
  if (url.key.empty()) url.key = options.key;
  if (url.sni.empty()) url.sni = options.sni;
  if (!url.verify_given) url.verify = options.verify;
}

std::shared_ptr<SSL_CTX> tlsContext(const TlsSettings& s) {
  if (!s.key.empty() && s.cert.empty()) invalid("TLS: key= without cert= (the client certificate)");
  const std::string key = fileKey("ca", s.ca) + fileKey("cert", s.cert) + fileKey("key", s.key) +
                          (s.verify ? "verify" : "none");
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<SSL_CTX>> cache;
  std::lock_guard<std::mutex> lk(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (cache.size() >= 64) cache.clear();  // live connections keep theirs
  std::shared_ptr<SSL_CTX> ctx = build(s);
  cache[key] = ctx;
  return ctx;
}

}  // namespace echomq
