// RAII ownership of libechomq handles and the connection a command uses.
// The tool talks to the library through the public C API only.
#pragma once

#include <echomq/echomq.hpp>

#include <memory>
#include <string>

namespace emqcli {

// Every handle the C API gives out has exactly one owner (echomq.hpp).
using echomq::BatchPtr;
using echomq::ClientPtr;
using echomq::JobListPtr;
using echomq::JobPtr;
using echomq::LaneListPtr;
using echomq::ReportPtr;

/// The server URL and queue of one invocation, and a connection opened on
/// first use, so a command validates all its input before any I/O.
class Session {
 public:
  Session(std::string url, std::string queue) : url_(std::move(url)), queue_(std::move(queue)) {}

  /// The connected client; connects on the first call. Throws CliError.
  echomq_client *client();
  const std::string &queue() const { return queue_; }
  const char *q() const { return queue_.c_str(); }
  const std::string &url() const { return url_; }

  /// Throw a CliError for a failed status, naming `what` and the library's message.
  void check(int status, const std::string &what);

 private:
  std::string url_;
  std::string queue_;
  ClientPtr client_;
};

/// The URL with any password replaced by "***", for messages.
std::string redact_url(const std::string &url);

/// Queue figures (version set, call checked).
echomq_queue_stats fetch_stats(Session &s);

}  // namespace emqcli
