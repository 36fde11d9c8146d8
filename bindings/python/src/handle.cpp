// handle.cpp: see handle.hpp.
#include "handle.hpp"

#include <cstring>

namespace emqpy {

const char *cstr(const std::string &s, const char *what) {
  if (s.find('\0') != std::string::npos) {
    throw Error{ECHOMQ_EINVAL, std::string(what) + " contains a NUL character"};
  }
  return s.c_str();
}

void throw_status(int status, const char *message) {
  throw Error{status, (message != nullptr && *message != '\0') ? std::string(message)
                                                                : std::string(echomq_strerror(status))};
}

namespace {
thread_local std::string t_unconfirmed;
}  // namespace

std::string take_unconfirmed() {
  std::string s;
  s.swap(t_unconfirmed);
  return s;
}

void note_unconfirmed(const char *message) { t_unconfirmed = message != nullptr ? message : "not confirmed"; }

Client::Client(int connect_timeout_ms, int command_timeout_ms, std::size_t max_payload_bytes,
               int wait_replicas, int wait_aof, int wait_timeout_ms) {
  echomq_client_options opts = ECHOMQ_CLIENT_OPTIONS_INIT;
  opts.wait_replicas = wait_replicas;
  opts.wait_aof = wait_aof;
  opts.wait_timeout_ms = wait_timeout_ms;
  if (connect_timeout_ms > 0) opts.connect_timeout_ms = connect_timeout_ms;
  if (command_timeout_ms > 0) opts.command_timeout_ms = command_timeout_ms;
  if (max_payload_bytes > 0) opts.max_payload_bytes = max_payload_bytes;
  echomq_client *c = nullptr;
  int rc = echomq_client_new(&c, &opts);
  if (rc != ECHOMQ_OK || c == nullptr) {
    throw_status(rc != ECHOMQ_OK ? rc : ECHOMQ_ENOMEM, "cannot create the client handle (bad options?)");
  }
  c_ = c;
}

Client::~Client() { close(); }

void Client::fail(int rc) {
  const char *msg = echomq_client_errmsg(c_);
  throw_status(rc, msg);
}

void Client::cancel() noexcept {
  std::lock_guard<std::mutex> lock(handle_mu_);
  if (c_ != nullptr) echomq_client_cancel(c_);
}

void Client::close() noexcept {
  cancel();  // a blocked claim would otherwise hold call_mu_ until its timeout
  std::lock_guard<std::mutex> call_lock(call_mu_);
  echomq_client *c = nullptr;
  {
    std::lock_guard<std::mutex> lock(handle_mu_);
    c = c_;
    c_ = nullptr;
  }
  echomq_client_free(c);
}

bool Client::closed() const noexcept {
  std::lock_guard<std::mutex> lock(handle_mu_);
  return c_ == nullptr;
}

bool Client::connected() {
  // A call in progress holds the connection: report it live rather than wait.
  std::unique_lock<std::mutex> lock(call_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return !closed();
  return c_ != nullptr && echomq_client_connected(c_) != 0;
}

}  // namespace emqpy
