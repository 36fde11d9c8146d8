// One connection to one Valkey server: connect with timeouts (TLS for a
// valkeys:// endpoint), AUTH, SELECT, argv-style commands with explicit
// lengths, MOVED/ASK redirects, and a thread-safe cancel. Bytes move through
// a Transport (cpp/transport.hpp); hiredis formats the commands and parses
// the replies (redisReader). A connection that fails is dropped; the next
// command reconnects. Not shared between threads (cancel() excepted).
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "reply.hpp"
#include "transport.hpp"
#include "url.hpp"

namespace echomq {

struct Timeouts {
  int connect_ms = 2000;
  int command_ms = 5000;
};

// A command as argv with explicit lengths: names and payloads are binary.
class Argv {
 public:
  void clear() { ptrs_.clear(); lens_.clear(); store_.clear(); }
  // Borrowed: the bytes must outlive the command.
  void ref(const char* p, size_t n) { ptrs_.push_back(p); lens_.push_back(n); }
  void ref(const std::string& s) { ref(s.data(), s.size()); }
  // Points slot i (a borrowed one) at other bytes.
  void replace(size_t i, const char* p, size_t n);
  // Owned copy (numbers and other temporaries).
  void own(std::string s);
  void own(long long v) { own(std::to_string(v)); }
  size_t size() const { return ptrs_.size(); }
  const char** ptrs() { fix(); return ptrs_.data(); }
  const size_t* lens() const { return lens_.data(); }

 private:
  void fix();
  std::vector<const char*> ptrs_;
  std::vector<size_t> lens_;
  std::vector<std::pair<size_t, std::string>> store_;  // index -> owned text
};

class Connection {
 public:
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Connects (replacing any live connection). Throws EINVAL (TLS files),
  // ECONN, ETIMEOUT, ETLS (handshake, certificate, name, a client
  // certificate the server wants: no command ran), ENOPERM, ESERVER.
  // An endpoint with Sentinels finds its primary through them
  // (cpp/sentinel.hpp), and again on every reconnect.
  void open(const Endpoint& ep, const Timeouts& t);
  void close();
  bool connected() const { return io_ != nullptr; }
  bool configured() const { return configured_; }
  // Reconnects with the last endpoint if the connection was dropped.
  void ensure();
  // How many MOVED redirects re-homed this connection: a router watching it
  // knows its slot map is out of date.
  uint64_t moves() const { return moves_; }

  // Sends one command and returns its reply, which may be an error reply
  // (REDIS_REPLY_ERROR) except redirects, which are followed. Throws ECONN
  // (not sent), ETIMEOUT (sent, no reply: outcome unknown).
  // read_timeout_ms > 0 overrides the command timeout for this command.
  ReplyPtr command(Argv& argv, int read_timeout_ms = 0);

  // A wait that cancel() may interrupt (BLPOP): ECANCELED if a cancel came
  // before it was sent or while it blocked. Only commands whose interruption
  // loses nothing may go through here.
  ReplyPtr interruptibleWait(Argv& argv, int read_timeout_ms);

  // Brackets a cancellable call (bclaim); cancel() is a no-op outside one.
  void beginCancellable();
  void endCancellable();
  // The bracket as a scope: a cancellable call from here to its end.
  class CancellableScope {
   public:
    explicit CancellableScope(Connection& c) : c_(c) { c_.beginCancellable(); }
    ~CancellableScope() { c_.endCancellable(); }
    CancellableScope(const CancellableScope&) = delete;
    CancellableScope& operator=(const CancellableScope&) = delete;

   private:
    Connection& c_;
  };
  bool cancelRequested() const { return cancel_requested_; }

  // Pipelined: sends all, reads all. Same errors.
  std::vector<ReplyPtr> pipeline(std::vector<Argv>& cmds);

  // Thread-safe: marks the cancellable call in progress as canceled and
  // interrupts its wait if it is blocked in one (see echomq_client_cancel).
  void cancel();

 private:
  ReplyPtr roundTrip(Argv& argv, int read_timeout_ms);
  // Formats a command onto out_.
  void append(Argv& argv);
  // Sends out_; throws `code` with the reason when the send fails.
  void flush(int code, const char* what);
  // The next reply, or null with the transport's error (or the parser's in
  // why) when the stream failed.
  ReplyPtr readReply(std::string& why);
  void confirmTls();
  void openDirect(const Endpoint& ep, const Timeouts& t);
  // Asks via_'s Sentinels for the primary and connects to it (cpp/sentinel.cpp).
  void openPrimary();
  // A reply that says the server is no longer the primary (READONLY, or a
  // blocked call UNBLOCKED by a role change) on a connection found through
  // Sentinel: the command did not run.
  bool demoted(const redisReply* r) const;
  void handshake();
  void setReadTimeout(int ms);
  [[noreturn]] void dropAndThrow(int code, const std::string& what);

  struct ReaderDeleter {
    void operator()(redisReader* r) const noexcept { redisReaderFree(r); }
  };
  std::unique_ptr<Transport> io_;
  std::unique_ptr<redisReader, ReaderDeleter> reader_;
  std::string out_;        // commands formatted, not sent yet
  std::vector<char> in_;   // read buffer
  Endpoint ep_;   // the server connected to
  Endpoint via_;  // the +sentinel endpoint this connection follows (sentinel set), if any
  Timeouts t_;
  bool configured_ = false;
  int current_read_ms_ = 0;
  uint64_t moves_ = 0;
  std::mutex mu_;  // guards io_ and the flags below against cancel()
  bool in_call_ = false;   // inside beginCancellable/endCancellable
  bool waiting_ = false;   // blocked in interruptibleWait
  bool shut_ = false;      // cancel() shut the socket down: drop it
  std::atomic<bool> cancel_requested_{false};
};

// The status of an error reply, by its first word: NOPERM, WRONGPASS,
// NOAUTH and an ACL denial inside a script -> ENOPERM; BUSY -> EBUSY;
// LOADING -> ELOADING; TRYAGAIN -> ETRYAGAIN; OOM -> EOOM; anything else
// -> ESERVER.
int replyErrorCode(const redisReply* r);
// Throws the reply's error with that status.
[[noreturn]] void throwReplyError(const redisReply* r, const char* what);

}  // namespace echomq
