#include "client.hpp"

#include "errors.hpp"

namespace emqcli {

int exit_code_for_status(int status) {
  switch (status) {
    case ECHOMQ_OK: return kExitOk;
    case ECHOMQ_EMPTY: return kExitEmpty;
    case ECHOMQ_PENDING: return kExitPending;
    case ECHOMQ_EINVAL:
    case ECHOMQ_ETOOLARGE: return kExitUsage;
    case ECHOMQ_ENOTFOUND: return kExitNotFound;
    case ECHOMQ_ESTALE: return kExitStale;
    case ECHOMQ_ELEASED: return kExitLeased;
    case ECHOMQ_ESHARDS: return kExitShards;
    case ECHOMQ_EDEPENDS: return kExitDepends;
    case ECHOMQ_ECONN:
    case ECHOMQ_ETIMEOUT:
    case ECHOMQ_ECANCELED:
    case ECHOMQ_ETLS:
    case ECHOMQ_ENOPERM: return kExitConn;
    default: return kExitFailure;
  }
}

// The Sentinels' password of a +sentinel URL (its query) is hidden too.
static std::string redact_sentinel_password(std::string url) {
  const std::string key = "sentinel_password=";
  for (size_t at = url.find(key); at != std::string::npos; at = url.find(key, at + 1)) {
    if (at == 0 || (url[at - 1] != '?' && url[at - 1] != '&')) continue;
    const size_t from = at + key.size();
    const size_t to = url.find('&', from);
    url.replace(from, to == std::string::npos ? std::string::npos : to - from, "***");
  }
  return url;
}

std::string redact_url(const std::string &raw) {
  const std::string url = redact_sentinel_password(raw);
  size_t scheme = url.find("://");
  size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  size_t at = url.find('@', start);
  if (at == std::string::npos) return url;
  size_t colon = url.find(':', start);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

echomq_client *Session::client() {
  if (client_) return client_.get();
  echomq_client *raw = nullptr;
  int rc = echomq_client_new(&raw, nullptr);
  ClientPtr c(raw);
  if (rc != ECHOMQ_OK) throw CliError(kExitFailure, std::string("cannot create client: ") +
                                                        echomq_strerror(rc));
  rc = echomq_client_connect(c.get(), url_.c_str());
  if (rc != ECHOMQ_OK) {
    std::string msg = echomq_client_errmsg(c.get());
    if (msg.empty()) msg = echomq_strerror(rc);
    const std::string shown = redact_url(url_);
    // The library's text may repeat "cannot connect to host:port: "; keep its reason only.
    const std::string dup = "cannot connect to ";
    size_t sep = msg.rfind(": ");
    if (msg.compare(0, dup.size(), dup) == 0 && sep != std::string::npos) msg = msg.substr(sep + 2);
    if (rc == ECHOMQ_EINVAL) throw usage_error("bad server URL '" + shown + "': " + msg);
    throw CliError(exit_code_for_status(rc), "cannot connect to " + shown + ": " + msg);
  }
  client_ = std::move(c);
  return client_.get();
}

void Session::check(int status, const std::string &what) {
  if (status == ECHOMQ_OK) return;
  std::string msg = client_ ? echomq_client_errmsg(client_.get()) : "";
  if (msg.empty()) msg = echomq_strerror(status);
  throw CliError(exit_code_for_status(status), what + ": " + msg);
}

echomq_queue_stats fetch_stats(Session &s) {
  echomq_queue_stats st{};
  st.version = ECHOMQ_QUEUE_STATS_VERSION;
  s.check(echomq_stats(s.client(), s.q(), &st), "stats");
  return st;
}

}  // namespace emqcli
