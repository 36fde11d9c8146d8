#include "url.hpp"

#include <cctype>

#include "error.hpp"
#include "sentinel.hpp"

namespace echomq {
namespace {

// Percent-decoding, so a password may hold '@', ':' or '/'.
std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
          !std::isxdigit(static_cast<unsigned char>(s[i + 2])))
        invalid("bad URL: broken percent escape");
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

int parseNumber(const std::string& s, int lo, int hi, const char* what) {
  if (s.empty() || s.size() > 9) invalid(std::string("bad URL: bad ") + what);
  for (char ch : s)
    if (!std::isdigit(static_cast<unsigned char>(ch))) invalid(std::string("bad URL: bad ") + what);
  int v = std::stoi(s);
  if (v < lo || v > hi) invalid(std::string("bad URL: ") + what + " out of range");
  return v;
}

void parseUserinfo(const std::string& ui, Endpoint& ep) {
  auto colon = ui.find(':');
  if (colon == std::string::npos) {
    // A lone userinfo is a password, as redis-cli and redis-py read it.
    ep.password = unescape(ui);
  } else {
    ep.user = unescape(ui.substr(0, colon));
    ep.password = unescape(ui.substr(colon + 1));
  }
  ep.has_password = true;
}

// The query of a TLS URL: ca, cert, key, sni, verify. Each at most once;
// anything else, or any of them without TLS, is refused.
void parseTlsQuery(const std::string& query, Endpoint& ep) {
  size_t pos = 0;
  bool seen[5] = {};
  static const char* const kNames[] = {"ca", "cert", "key", "sni", "verify"};
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    if (amp == std::string::npos) amp = query.size();
    const std::string item = query.substr(pos, amp - pos);
    pos = amp + 1;
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : unescape(item.substr(eq + 1));
    int i = 0;
    while (i < 5 && name != kNames[i]) ++i;
    if (i == 5)
      invalid("bad URL: unknown query parameter '" + name + "' (ca, cert, key, sni, verify)");
    if (!ep.tls.on)
      invalid("bad URL: '" + name + "' needs a TLS URL (valkeys:// or rediss://)");
    if (seen[i]) invalid("bad URL: '" + name + "' given twice");
    seen[i] = true;
    if (value.empty()) invalid("bad URL: '" + name + "' needs a value");
    switch (i) {
      case 0: ep.tls.ca = value; break;
      case 1: ep.tls.cert = value; break;
      case 2: ep.tls.key = value; break;
      case 3: ep.tls.sni = value; break;
      default:
        if (value != "none" && value != "full")
          invalid("bad URL: verify must be 'full' (the default) or 'none' (tests only)");
        ep.tls.verify = value == "full";
        ep.tls.verify_given = true;
    }
  }
}

}  // namespace

Endpoint parseUrl(const std::string& url) {
  Endpoint ep;
  if (url.empty()) invalid("bad URL: empty");
  for (unsigned char ch : url)
    if (ch < 0x21 || ch > 0x7e) invalid("bad URL: spaces or control characters");
  auto sep = url.find("://");
  if (sep == std::string::npos) invalid("bad URL: expected valkey://host[:port][/db] or unix:///path");
  std::string scheme = url.substr(0, sep);
  std::string rest = url.substr(sep + 3);
  if (isSentinelScheme(scheme)) return parseSentinelUrl(scheme, rest);

  auto at = rest.rfind('@');
  if (at != std::string::npos) {
    parseUserinfo(rest.substr(0, at), ep);
    rest = rest.substr(at + 1);
  }

  if (scheme == "unix" || scheme == "valkey+unix" || scheme == "redis+unix") {
    ep.unix_socket = true;
    auto q = rest.find('?');
    std::string query;
    if (q != std::string::npos) {
      query = rest.substr(q + 1);
      rest = rest.substr(0, q);
    }
    if (rest.empty() || rest[0] != '/') invalid("bad URL: unix socket path must be absolute");
    ep.path = unescape(rest);
    if (!query.empty()) {
      if (query.rfind("db=", 0) != 0) invalid("bad URL: only ?db=N is understood");
      ep.db = parseNumber(query.substr(3), 0, 1 << 20, "db");
    }
    return ep;
  }
  ep.tls.on = scheme == "valkeys" || scheme == "rediss";
  if (scheme != "valkey" && scheme != "redis" && !ep.tls.on)
    invalid("bad URL: unknown scheme '" + scheme +
            "' (valkey, redis, valkeys, rediss, unix, valkey+sentinel, redis+sentinel, valkeys+sentinel)");
  auto q = rest.find('?');
  if (q != std::string::npos) {
    parseTlsQuery(rest.substr(q + 1), ep);
    rest = rest.substr(0, q);
  }

  std::string hostport = rest, dbpart;
  auto slash = rest.find('/');
  if (slash != std::string::npos) {
    hostport = rest.substr(0, slash);
    dbpart = rest.substr(slash + 1);
  }
  if (hostport.empty()) invalid("bad URL: missing host");
  std::string portpart;
  if (hostport[0] == '[') {  // [::1]:6379
    auto close = hostport.find(']');
    if (close == std::string::npos) invalid("bad URL: unclosed IPv6 bracket");
    ep.host = hostport.substr(1, close - 1);
    std::string after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') invalid("bad URL: junk after IPv6 address");
      portpart = after.substr(1);
      if (portpart.empty()) invalid("bad URL: empty port");
    }
  } else {
    auto colon = hostport.find(':');
    ep.host = hostport.substr(0, colon);
    if (colon != std::string::npos) {
      portpart = hostport.substr(colon + 1);
      if (portpart.empty()) invalid("bad URL: empty port");
    }
  }
  if (ep.host.empty()) invalid("bad URL: missing host");
  for (unsigned char ch : ep.host)
    if (!(std::isalnum(ch) || ch == '.' || ch == '-' || ch == ':' || ch == '_'))
      invalid("bad URL: bad host name");
  if (!portpart.empty()) ep.port = parseNumber(portpart, 1, 65535, "port");
  if (!dbpart.empty()) ep.db = parseNumber(dbpart, 0, 1 << 20, "db");
  return ep;
}

std::string urlUnescape(const std::string& s) { return unescape(s); }

}  // namespace echomq
