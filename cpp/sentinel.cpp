// Discovery of a primary through Sentinel (cpp/sentinel.hpp).
#include "sentinel.hpp"

#include <chrono>
#include <thread>

#include "clock.hpp"
#include "error.hpp"

namespace echomq {
namespace {

constexpr int kRoleRetryMs = 100;

std::string nodeName(const std::string& host, int port) { return host + ":" + std::to_string(port); }

bool isString(const redisReply* r) {
  return r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS;
}

}  // namespace

Endpoint askSentinels(const Endpoint& ep, const Timeouts& t) {
  const Sentinels& s = *ep.sentinel;
  std::string said;
  for (const auto& [host, port] : s.nodes) {
    const std::string name = nodeName(host, port);
    // The Sentinel is reached as the primary is (TLS settings and all), with
    // the Sentinels' own credentials and no db.
    Endpoint node = ep;
    node.sentinel.reset();
    node.host = host;
    node.port = port;
    node.db = 0;
    node.user = s.user;
    node.password = s.password;
    node.has_password = s.has_password;
    try {
      Connection c;
      c.open(node, t);
      Argv a;
      a.ref("SENTINEL", 8);
      a.ref("GET-MASTER-ADDR-BY-NAME", 23);
      a.ref(s.primary);
      ReplyPtr r = c.command(a);
      if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 && isString(r->element[0]) &&
          isString(r->element[1])) {
        Endpoint out = ep;
        out.sentinel.reset();
        out.host.assign(r->element[0]->str, r->element[0]->len);
        try {
          out.port = std::stoi(std::string(r->element[1]->str, r->element[1]->len));
        } catch (...) {
          out.port = 0;
        }
        if (!out.host.empty() && out.port > 0 && out.port < 65536) return out;
        said += "; " + name + ": answered an address that is not one";
      } else if (r->type == REDIS_REPLY_NIL) {
        said += "; " + name + ": monitors no primary named '" + s.primary + "'";
      } else if (r->type == REDIS_REPLY_ERROR) {
        said += "; " + name + ": " + std::string(r->str, r->len);
      } else {
        said += "; " + name + ": unexpected reply (not a Sentinel?)";
      }
    } catch (const Error& e) {
      said += "; " + name + ": " + e.what();
    }
  }
  fail(kConn, "no Sentinel named the primary '" + s.primary + "'" + said);
}

void Connection::openPrimary() {
  const Sentinels& s = *via_.sentinel;
  const int64_t deadline = steadyMs() + t_.connect_ms;
  for (;;) {
    const Endpoint at = askSentinels(via_, t_);
    try {
      openDirect(at, t_);
    } catch (const Error& e) {
      fail(e.code(), "primary '" + s.primary + "' as Sentinel names it: " + e.what());
    }
    // Sentinel may lag behind a failover: the address must be a primary now.
    Argv a;
    a.ref("ROLE", 4);
    ReplyPtr r = command(a);
    // A user denied ROLE takes Sentinel's word (a write to a replica is
    // still caught by its READONLY reply).
    if (r->type == REDIS_REPLY_ERROR) return;
    std::string role;
    if (r->type == REDIS_REPLY_ARRAY && r->elements > 0 && isString(r->element[0]))
      role.assign(r->element[0]->str, r->element[0]->len);
    if (role == "master") return;
    close();
    if (steadyMs() >= deadline)
      fail(kConn, "Sentinel names " + nodeName(at.host, at.port) + " as primary '" + s.primary +
                      "', but it answers ROLE " + (role.empty() ? "?" : role) +
                      " (a failover in progress?); nothing was sent");
    std::this_thread::sleep_for(std::chrono::milliseconds(kRoleRetryMs));
  }
}

}  // namespace echomq
