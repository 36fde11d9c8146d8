// Parsing of +sentinel URLs (cpp/sentinel.hpp). The primary's part (its
// credentials, db and any TLS parameter) is handed to parseUrl as a URL of
// the base scheme, so both kinds of URL read those the same way.
#include <cctype>

#include "error.hpp"
#include "sentinel.hpp"

namespace echomq {
namespace {

constexpr char kSuffix[] = "+sentinel";
constexpr size_t kSuffixLen = sizeof kSuffix - 1;
constexpr int kSentinelPort = 26379;
constexpr size_t kSentinelsMax = 16;
constexpr size_t kPrimaryNameMax = 256;

const char kShape[] =
    "://[user[:password]@]host[:port][,host[:port]...]/<primary-name>[/db]"
    "[?sentinel_user=U&sentinel_password=P]";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    size_t next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (next == std::string::npos) return out;
    pos = next + 1;
  }
}

// host[:port] or [v6]:port, checked by the plain URL parser.
std::pair<std::string, int> parseNode(const std::string& node) {
  if (node.empty()) invalid("bad URL: empty Sentinel address in the host list");
  const bool hasPort = node[0] == '[' ? node.find("]:") != std::string::npos
                                      : node.find(':') != std::string::npos;
  Endpoint ep = parseUrl("valkey://" + node);
  return {ep.host, hasPort ? ep.port : kSentinelPort};
}

}  // namespace

bool isSentinelScheme(const std::string& scheme) {
  return scheme.size() > kSuffixLen &&
         scheme.compare(scheme.size() - kSuffixLen, kSuffixLen, kSuffix) == 0;
}

Endpoint parseSentinelUrl(const std::string& scheme, const std::string& all) {
  const std::string base = scheme.substr(0, scheme.size() - kSuffixLen);
  const std::string shape = "expected " + scheme + kShape;
  if (base != "valkey" && base != "redis" && base != "valkeys" && base != "rediss")
    invalid("bad URL: unknown scheme '" + scheme + "' (valkey+sentinel, redis+sentinel, "
            "valkeys+sentinel, rediss+sentinel)");
  std::string rest = all, query;
  auto q = rest.find('?');
  if (q != std::string::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string userinfo;
  auto at = rest.rfind('@');
  if (at != std::string::npos) {
    userinfo = rest.substr(0, at + 1);
    rest = rest.substr(at + 1);
  }
  auto slash = rest.find('/');
  if (slash == std::string::npos || slash + 1 == rest.size())
    invalid("bad URL: a Sentinel URL names the primary: " + shape);
  const std::vector<std::string> path = split(rest.substr(slash + 1), '/');
  if (path.size() > 2) invalid("bad URL: junk after the db: " + shape);
  auto set = std::make_shared<Sentinels>();
  set->primary = urlUnescape(path[0]);
  if (set->primary.empty()) invalid("bad URL: a Sentinel URL names the primary: " + shape);
  if (set->primary.size() > kPrimaryNameMax) invalid("bad URL: primary name too long");
  for (unsigned char ch : set->primary)
    if (ch < 0x21 || ch > 0x7e) invalid("bad URL: primary name holds spaces or control characters");
  const std::string db = path.size() == 2 ? path[1] : "";
  if (path.size() == 2 && db.empty()) invalid("bad URL: empty db: " + shape);

  const std::vector<std::string> nodes = split(rest.substr(0, slash), ',');
  if (nodes.size() > kSentinelsMax)
    invalid("bad URL: more than " + std::to_string(kSentinelsMax) + " Sentinels");
  for (const std::string& n : nodes) set->nodes.push_back(parseNode(n));

  std::string passed;  // the base scheme's parameters
  bool hasUser = false;
  if (q != std::string::npos) {
    for (const std::string& kv : split(query, '&')) {
      const auto eq = kv.find('=');
      const std::string key = kv.substr(0, eq);
      const std::string value = eq == std::string::npos ? "" : kv.substr(eq + 1);
      if (key == "sentinel_user" || key == "sentinel_password") {
        if (eq == std::string::npos) invalid("bad URL: " + key + " without a value");
        if (key == "sentinel_user") {
          if (hasUser) invalid("bad URL: sentinel_user given twice");
          hasUser = true;
          set->user = urlUnescape(value);
        } else {
          if (set->has_password) invalid("bad URL: sentinel_password given twice");
          set->has_password = true;
          set->password = urlUnescape(value);
        }
      } else {
        passed += (passed.empty() ? "" : "&") + kv;
      }
    }
  }
  if (hasUser && !set->has_password) invalid("bad URL: sentinel_user without sentinel_password");

  const std::string first = nodes[0];
  Endpoint ep = parseUrl(base + "://" + userinfo + first + "/" + db + (passed.empty() ? "" : "?" + passed));
  ep.sentinel = std::move(set);
  return ep;
}

}  // namespace echomq
