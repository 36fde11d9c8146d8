#include "connection.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "error.hpp"
#include "tls.hpp"

namespace echomq {
namespace {

constexpr size_t kReadChunk = 64 * 1024;

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
  std::unique_ptr<Transport> gone;
  {
    std::lock_guard<std::mutex> lk(mu_);
    gone = std::move(io_);
  }
  reader_.reset();
  out_.clear();
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
  // TLS files are read (and refused with EINVAL) before any network I/O.
  std::shared_ptr<SSL_CTX> tls = ep.tls.on ? tlsContext(ep.tls) : nullptr;
  auto io = std::make_unique<Transport>(ep, t.connect_ms, std::move(tls));
  reader_.reset(redisReaderCreate());
  if (!reader_) fail(kNoMem, "cannot allocate a reply parser");
  in_.resize(kReadChunk);
  {
    std::lock_guard<std::mutex> lk(mu_);
    io_ = std::move(io);
  }
  current_read_ms_ = 0;
  if (io_->tls()) confirmTls();
  setReadTimeout(t.command_ms);
  handshake();
}

// With TLS 1.3 the client's side of the handshake ends before the server
// has checked the client's certificate: a server that wants one (and got
// none, or one it does not trust) says so with an alert on the first read.
// One PING, which the server never runs when it refuses the session, turns
// that into ETLS here rather than a lost connection on the first real call.
void Connection::confirmTls() {
  setReadTimeout(t_.connect_ms);
  Argv a;
  a.ref("PING", 4);
  append(a);
  std::string why;
  const bool sent = io_->write(out_.data(), out_.size());
  out_.clear();
  if (sent && readReply(why)) return;  // any reply, NOAUTH too: the session stands
  if (!sent) {
    // The server closed it already; its alert, if it sent one before, may
    // still be there to read and says why better than the reset does.
    why = io_->error();
    std::string alert;
    if (!readReply(alert) && alert.rfind("TLS: ", 0) == 0) why = alert;
  }
  const bool timedOut = io_->timedOut();
  const std::string who = endpointName(ep_);
  if (timedOut) dropAndThrow(kTimeout, "TLS session with " + who + ": no answer within " +
                                           std::to_string(t_.connect_ms) + " ms");
  dropAndThrow(kTls, "TLS session with " + who + " refused after the handshake: " + why +
                         (ep_.tls.cert.empty() ? " (does the server require a client certificate? give cert= and key=)"
                                               : " (is the client certificate trusted by the server?)") +
                         "; no command ran");
}

void Connection::ensure() {
  if (io_) return;
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
  if (ms == current_read_ms_ || !io_) return;
  if (!io_->setTimeout(ms)) dropAndThrow(kConn, "cannot set the socket timeout");
  current_read_ms_ = ms;
}

void Connection::append(Argv& argv) {
  char* cmd = nullptr;
  const int n = redisFormatCommandArgv(&cmd, static_cast<int>(argv.size()), argv.ptrs(), argv.lens());
  if (n < 0 || !cmd) fail(kNoMem, "cannot format a command");
  out_.append(cmd, static_cast<size_t>(n));
  std::free(cmd);  // redisFreeCommand's body; hiredis 0.14 allocates with malloc
}

void Connection::flush(int code, const char* what) {
  const bool ok = io_->write(out_.data(), out_.size());
  out_.clear();
  if (!ok) dropAndThrow(code, std::string(what) + ": " + io_->error());
}

ReplyPtr Connection::readReply(std::string& why) {
  for (;;) {
    void* raw = nullptr;
    if (redisReaderGetReply(reader_.get(), &raw) != REDIS_OK) {
      why = std::string("bad reply: ") + reader_->errstr;
      return nullptr;
    }
    if (raw) return ReplyPtr(static_cast<redisReply*>(raw));
    const size_t n = io_->read(in_.data(), in_.size());
    if (n == 0) {
      why = io_->error();
      return nullptr;
    }
    if (redisReaderFeed(reader_.get(), in_.data(), n) != REDIS_OK) fail(kNoMem, "cannot buffer a reply");
  }
}

ReplyPtr Connection::roundTrip(Argv& argv, int read_timeout_ms) {
  append(argv);
  // Write everything first: a failure here means the server never got the
  // whole command, so nothing ran (ECONN). A failure while reading leaves the
  // outcome unknown (ETIMEOUT).
  flush(kConn, "connection lost while sending");
  std::string why;
  ReplyPtr r = readReply(why);
  if (!r) {
    if (io_->timedOut())
      dropAndThrow(kTimeout, "no reply within " + std::to_string(read_timeout_ms) +
                                 " ms; the outcome is unknown");
    dropAndThrow(kTimeout, "connection lost before the reply (" + why + "); the outcome is unknown");
  }
  return r;
}

ReplyPtr Connection::command(Argv& argv, int read_timeout_ms) {
  ensure();
  int ms = read_timeout_ms > 0 ? read_timeout_ms : t_.command_ms;
  setReadTimeout(ms);
  ReplyPtr r = roundTrip(argv, ms);
  if (demoted(r.get())) {
    // Refused before it ran: ask Sentinel for the new primary and send it
    // there, once.
    close();
    ensure();
    setReadTimeout(ms);
    r = roundTrip(argv, ms);
  }
  // Cluster redirects: MOVED re-homes this connection; ASK asks once.
  for (int hops = 0; hops < 5 && r->type == REDIS_REPLY_ERROR; ++hops) {
    std::string host;
    int port = 0;
    if (startsWith(r.get(), "MOVED") && parseRedirect(r.get(), host, port)) {
      open(redirected(ep_, host, port), t_);
      ++moves_;
      setReadTimeout(ms);
      r = roundTrip(argv, ms);
    } else if (startsWith(r.get(), "ASK") && parseRedirect(r.get(), host, port)) {
      Connection side;
      side.open(redirected(ep_, host, port), t_);
      Argv asking;
      asking.ref("ASKING", 6);
      side.command(asking);
      side.setReadTimeout(ms);
      r = side.roundTrip(argv, ms);
    } else {
      break;
    }
  }
  return r;
}

std::vector<ReplyPtr> Connection::pipeline(std::vector<Argv>& cmds) {
  ensure();
  setReadTimeout(t_.command_ms);
  for (auto& a : cmds) append(a);
  // Part of the pipeline may have reached the server: the outcome is unknown.
  if (!io_->write(out_.data(), out_.size())) {
    out_.clear();
    dropAndThrow(kTimeout, "connection lost while sending a pipeline (" + io_->error() +
                               "); the outcome is unknown");
  }
  out_.clear();
  std::vector<ReplyPtr> out;
  out.reserve(cmds.size());
  for (size_t i = 0; i < cmds.size(); ++i) {
    std::string why;
    ReplyPtr r = readReply(why);
    if (!r) dropAndThrow(kTimeout, "connection lost in a pipeline (" + why + "); the outcome is unknown");
    out.push_back(std::move(r));
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
    r = roundTrip(argv, read_timeout_ms);
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
  if (waiting_ && io_) {
    shut_ = true;
    io_->interrupt();  // a shutdown(2): the blocked read, TLS or not, returns
  }
}

}  // namespace echomq
