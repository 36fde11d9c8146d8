#include "connection.hpp"

#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>

#include <hiredis/sds.h>

#include "error.hpp"

namespace echomq {
namespace {

timeval toTimeval(int ms) {
  timeval tv;
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

std::string endpointName(const Endpoint& ep) {
  if (ep.unix_socket) return "unix:" + ep.path;
  return ep.host + ":" + std::to_string(ep.port);
}

bool startsWith(const redisReply* r, const char* word) {
  size_t n = std::strlen(word);
  return r->type == REDIS_REPLY_ERROR && r->len >= n && std::memcmp(r->str, word, n) == 0 &&
         (r->len == n || r->str[n] == ' ');
}

// "MOVED 3999 127.0.0.1:6381" -> host, port.
bool parseRedirect(const redisReply* r, std::string& host, int& port) {
  std::string s(r->str, r->len);
  auto sp = s.rfind(' ');
  auto colon = s.rfind(':');
  if (sp == std::string::npos || colon == std::string::npos || colon < sp) return false;
  host = s.substr(sp + 1, colon - sp - 1);
  try {
    port = std::stoi(s.substr(colon + 1));
  } catch (...) {
    return false;
  }
  return !host.empty() && port > 0 && port < 65536;
}

// Sends everything hiredis has buffered with MSG_NOSIGNAL. hiredis 0.14
// writes with write(2), which raises SIGPIPE on a connection the peer closed
// and kills a host that keeps the default disposition; a library must report
// that as a lost connection instead. Once obuf is empty, redisGetReply has
// nothing left to write. Returns false (errno set) if the socket failed; the
// caller then drops the connection, buffer and all. (Only sds's inline
// helpers are used: hiredis 0.14 declares the others without C linkage.)
bool sendBuffered(redisContext* ctx) {
  size_t off = 0;
  const size_t len = sdslen(ctx->obuf);
  while (off < len) {
    const ssize_t n = ::send(ctx->fd, ctx->obuf + off, len - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EPIPE;
      return false;
    }
    off += static_cast<size_t>(n);
  }
  sdssetlen(ctx->obuf, 0);
  ctx->obuf[0] = '\0';
  return true;
}

}  // namespace

void Argv::own(std::string s) {
  store_.emplace_back(ptrs_.size(), std::move(s));
  ptrs_.push_back(nullptr);
  lens_.push_back(store_.back().second.size());
}

void Argv::replace(size_t i, const char* p, size_t n) {
  ptrs_[i] = p;
  lens_[i] = n;
}

void Argv::fix() {
  // Owned strings may have moved while store_ grew; point at them last.
  for (auto& [i, s] : store_) ptrs_[i] = s.data();
}

int replyErrorCode(const redisReply* r) {
  struct Word {
    const char* word;
    int code;
  };
  // By the error's first word; a command refused inside a script keeps its
  // word ("OOM ... script: ..."), except an ACL denial there (below).
  static const Word kWords[] = {
      {"NOPERM", kNoPerm},  {"WRONGPASS", kNoPerm}, {"NOAUTH", kNoPerm},
      {"BUSY", kBusy},      {"LOADING", kLoading},  {"TRYAGAIN", kTryAgain},
      {"OOM", kOom},
  };
  if (r->type != REDIS_REPLY_ERROR) return kOk;
  for (const Word& w : kWords)
    if (startsWith(r, w.word)) return w.code;
  // Valkey words it "ERR ACL failure in script: ...", Redis 7.0 "ERR The
  // user executing the script can't run this command or subcommand ...".
  static const char* const kAclInScript[] = {
      "ERR ACL failure in script",
      "ERR The user executing the script can't run this command",
  };
  for (const char* text : kAclInScript) {
    const size_t n = std::strlen(text);
    if (r->len >= n && std::memcmp(r->str, text, n) == 0) return kNoPerm;
  }
  return kServer;
}

[[noreturn]] void throwReplyError(const redisReply* r, const char* what) {
  std::string msg(r->str, r->len);
  fail(replyErrorCode(r), std::string(what) + ": " + msg);
}

Connection::~Connection() { close(); }

void Connection::close() {
  std::lock_guard<std::mutex> lk(mu_);
  ctx_.reset();
}

void Connection::dropAndThrow(int code, const std::string& what) {
  close();
  fail(code, what);
}

void Connection::open(const Endpoint& ep, const Timeouts& t) {
  if (ep.sentinel) {
    close();
    via_ = ep;
    t_ = t;
    configured_ = true;
    openPrimary();
    return;
  }
  via_ = Endpoint{};
  openDirect(ep, t);
}

bool Connection::demoted(const redisReply* r) const {
  return via_.sentinel && (startsWith(r, "READONLY") || startsWith(r, "UNBLOCKED"));
}

void Connection::openDirect(const Endpoint& ep, const Timeouts& t) {
  close();
  ep_ = ep;
  t_ = t;
  configured_ = true;
  timeval ctv = toTimeval(t.connect_ms);
  ContextPtr ctx(ep.unix_socket ? redisConnectUnixWithTimeout(ep.path.c_str(), ctv)
                                : redisConnectWithTimeout(ep.host.c_str(), ep.port, ctv));
  if (!ctx) fail(kNoMem, "cannot allocate a connection");
  if (ctx->err) {
    int code = (ctx->err == REDIS_ERR_IO && (errno == ETIMEDOUT || errno == EINPROGRESS ||
                                             errno == EAGAIN))
                   ? kTimeout
                   : kConn;
    fail(code, "cannot connect to " + endpointName(ep) + ": " + ctx->errstr);
  }
  {
    std::lock_guard<std::mutex> lk(mu_);
    ctx_ = std::move(ctx);
  }
  current_read_ms_ = 0;
  setReadTimeout(t.command_ms);
  handshake();
}

void Connection::ensure() {
  if (ctx_) return;
  if (!configured_) fail(kConn, "not connected: connect first");
  if (via_.sentinel) openPrimary();
  else openDirect(ep_, t_);
}

void Connection::handshake() {
  if (ep_.has_password) {
    Argv a;
    a.ref("AUTH", 4);
    if (!ep_.user.empty()) a.ref(ep_.user);
    a.ref(ep_.password);
    ReplyPtr r = command(a);
    if (r->type == REDIS_REPLY_ERROR) {
      close();
      std::string msg(r->str, r->len);
      int code = startsWith(r.get(), "WRONGPASS") || startsWith(r.get(), "NOPERM") ||
                         startsWith(r.get(), "ERR")
                     ? kNoPerm
                     : kServer;
      fail(code, "AUTH refused by " + endpointName(ep_) + ": " + msg);
    }
  }
  if (ep_.db != 0) {
    Argv a;
    a.ref("SELECT", 6);
    a.own(ep_.db);
    ReplyPtr r = command(a);
    if (r->type == REDIS_REPLY_ERROR) {
      close();
      throwReplyError(r.get(), "SELECT");
    }
  }
}

void Connection::setReadTimeout(int ms) {
  if (ms == current_read_ms_ || !ctx_) return;
  if (redisSetTimeout(ctx_.get(), toTimeval(ms)) != REDIS_OK)
    dropAndThrow(kConn, "cannot set the socket timeout");
  current_read_ms_ = ms;
}

ReplyPtr Connection::roundTrip(redisContext* ctx, Argv& argv, int read_timeout_ms) {
  if (redisAppendCommandArgv(ctx, static_cast<int>(argv.size()), argv.ptrs(), argv.lens()) !=
      REDIS_OK)
    fail(kNoMem, "cannot format a command");
  // Write everything first: a failure here means the server never got the
  // whole command, so nothing ran (ECONN). A failure while reading leaves the
  // outcome unknown (ETIMEOUT).
  if (!sendBuffered(ctx)) {
    const bool timedOut = errno == EAGAIN || errno == EWOULDBLOCK;
    dropAndThrow(kConn, std::string("connection lost while sending: ") +
                            (timedOut ? "the send timed out" : std::strerror(errno)));
  }
  void* raw = nullptr;
  if (redisGetReply(ctx, &raw) != REDIS_OK || raw == nullptr) {
    std::string why = ctx->errstr;
    bool timedOut = ctx->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK);
    if (timedOut)
      dropAndThrow(kTimeout, "no reply within " + std::to_string(read_timeout_ms) +
                                        " ms; the outcome is unknown");
    dropAndThrow(kTimeout,
                 "connection lost before the reply (" + why + "); the outcome is unknown");
  }
  return ReplyPtr(static_cast<redisReply*>(raw));
}

ReplyPtr Connection::command(Argv& argv, int read_timeout_ms) {
  ensure();
  int ms = read_timeout_ms > 0 ? read_timeout_ms : t_.command_ms;
  setReadTimeout(ms);
  ReplyPtr r = roundTrip(ctx_.get(), argv, ms);
  if (demoted(r.get())) {
    // Refused before it ran: ask Sentinel for the new primary and send it
    // there, once.
    close();
    ensure();
    setReadTimeout(ms);
    r = roundTrip(ctx_.get(), argv, ms);
  }
  // Cluster redirects: MOVED re-homes this connection; ASK asks once.
  for (int hops = 0; hops < 5 && r->type == REDIS_REPLY_ERROR; ++hops) {
    std::string host;
    int port = 0;
    if (startsWith(r.get(), "MOVED") && parseRedirect(r.get(), host, port)) {
      Endpoint to = ep_;
      to.unix_socket = false;
      to.host = host;
      to.port = port;
      to.db = 0;
      open(to, t_);
      ++moves_;
      setReadTimeout(ms);
      r = roundTrip(ctx_.get(), argv, ms);
    } else if (startsWith(r.get(), "ASK") && parseRedirect(r.get(), host, port)) {
      Endpoint to = ep_;
      to.unix_socket = false;
      to.host = host;
      to.port = port;
      to.db = 0;
      Connection side;
      side.open(to, t_);
      Argv asking;
      asking.ref("ASKING", 6);
      side.command(asking);
      side.setReadTimeout(ms);
      r = side.roundTrip(side.ctx_.get(), argv, ms);
    } else {
      break;
    }
  }
  return r;
}

std::vector<ReplyPtr> Connection::pipeline(std::vector<Argv>& cmds) {
  ensure();
  setReadTimeout(t_.command_ms);
  redisContext* ctx = ctx_.get();
  for (auto& a : cmds)
    if (redisAppendCommandArgv(ctx, static_cast<int>(a.size()), a.ptrs(), a.lens()) != REDIS_OK)
      fail(kNoMem, "cannot format a command");
  // Part of the pipeline may have reached the server: the outcome is unknown.
  if (!sendBuffered(ctx))
    dropAndThrow(kTimeout, std::string("connection lost while sending a pipeline (") +
                               std::strerror(errno) + "); the outcome is unknown");
  std::vector<ReplyPtr> out;
  out.reserve(cmds.size());
  for (size_t i = 0; i < cmds.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(ctx, &raw) != REDIS_OK || raw == nullptr) {
      std::string why = ctx->errstr;
      dropAndThrow(kTimeout,
                   "connection lost in a pipeline (" + why + "); the outcome is unknown");
    }
    out.emplace_back(static_cast<redisReply*>(raw));
  }
  return out;
}

void Connection::beginCancellable() {
  std::lock_guard<std::mutex> lk(mu_);
  in_call_ = true;
  cancel_requested_ = false;
}

void Connection::endCancellable() {
  std::lock_guard<std::mutex> lk(mu_);
  in_call_ = false;
  waiting_ = false;
}

ReplyPtr Connection::interruptibleWait(Argv& argv, int read_timeout_ms) {
  ensure();
  setReadTimeout(read_timeout_ms);
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (cancel_requested_) fail(kCanceled, "canceled before the wait; nothing was claimed");
    waiting_ = true;
  }
  ReplyPtr r;
  int err = kOk;
  std::string msg;
  try {
    r = roundTrip(ctx_.get(), argv, read_timeout_ms);
  } catch (const Error& e) {
    err = e.code();
    msg = e.what();
  }
  bool shut;
  {
    std::lock_guard<std::mutex> lk(mu_);
    waiting_ = false;
    shut = shut_;
    shut_ = false;
  }
  // A socket that cancel() shut down is useless even if the reply made it.
  if (shut) close();
  if (cancel_requested_) fail(kCanceled, "canceled while waiting; nothing was claimed");
  if (err != kOk) fail(err, msg);
  if (demoted(r.get()))
    dropAndThrow(kConn, "the server is no longer the primary (" + std::string(r->str, r->len) +
                            "); nothing was claimed; the next call asks Sentinel again");
  return r;
}

void Connection::cancel() {
  std::lock_guard<std::mutex> lk(mu_);
  if (!in_call_) return;
  cancel_requested_ = true;
  if (waiting_ && ctx_ && ctx_->fd >= 0) {
    shut_ = true;
    ::shutdown(ctx_->fd, SHUT_RDWR);
  }
}

}  // namespace echomq
