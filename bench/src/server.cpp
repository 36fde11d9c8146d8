// server.cpp — see server.hpp.
#include "server.hpp"

#include <hiredis/hiredis.h>
#include <hiredis_ptr.hpp>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

namespace bench {

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

namespace {

using Reply = echomq::ReplyPtr;

Reply command(redisContext *c, const std::vector<std::string> &args) {
  std::vector<const char *> argv;
  std::vector<size_t> lens;
  for (const auto &a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  return Reply(static_cast<redisReply *>(
      redisCommandArgv(c, int(argv.size()), argv.data(), lens.data())));
}

/// The server the signal handler must stop (one at a time).
OwnServer *g_running = nullptr;
pid_t g_pid = -1;

void on_signal(int sig) {
  if (g_pid > 0) kill(g_pid, SIGKILL);
  if (g_running) g_running->stop();
  _exit(128 + sig);
}

}  // namespace

bool OwnServer::start() {
  const char *bin = std::getenv("VALKEY_SERVER");
  if (!bin || !*bin) bin = "valkey-server";
  char tmpl[] = "/tmp/echomq-bench.XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("echomq_bench: mkdtemp");
    return false;
  }
  dir_ = tmpl;
  for (int attempt = 0; attempt < 5; ++attempt) {
    int port = free_port();
    if (port <= 0) continue;
    const std::string ports = std::to_string(port), log = dir_ + "/valkey.log";
    pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the benchmark
      std::vector<const char *> argv{bin, "--bind", "127.0.0.1", "--port", ports.c_str(), "--dir",
                                     dir_.c_str(), "--save", "", "--appendonly", "no", "--daemonize",
                                     "no", "--logfile", log.c_str()};
      for (const std::string &a : extra_args) argv.push_back(a.c_str());
      argv.push_back(nullptr);
      execvp(bin, const_cast<char *const *>(argv.data()));
      _exit(127);
    }
    pid_ = g_pid = pid;
    g_running = this;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    url_ = "valkey://127.0.0.1:" + ports;
    for (int i = 0; i < 100; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = g_pid = -1;
        break;
      }
      Admin a(url_);
      if (a.connected()) {
        version_ = a.info_field("server", "valkey_version");
        if (version_.empty()) version_ = a.info_field("server", "redis_version");
        return true;
      }
    }
    stop();
    char again[] = "/tmp/echomq-bench.XXXXXX";
    if (!mkdtemp(again)) break;
    dir_ = again;
  }
  std::fprintf(stderr, "echomq_bench: could not start %s (is valkey-server installed?)\n", bin);
  stop();
  return false;
}

void OwnServer::stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = g_pid = -1;
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
  if (g_running == this) g_running = nullptr;
}

bool parse_url(const std::string &url, Endpoint *out) {
  Endpoint e;
  std::string rest;
  bool unix_sock = false;
  for (const char *scheme : {"valkey://", "redis://", "unix://"}) {
    if (url.rfind(scheme, 0) == 0) {
      rest = url.substr(std::strlen(scheme));
      unix_sock = std::strcmp(scheme, "unix://") == 0;
    }
  }
  if (rest.empty()) return false;
  size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    std::string cred = rest.substr(0, at);
    rest = rest.substr(at + 1);
    size_t colon = cred.find(':');
    if (colon == std::string::npos) {
      e.password = cred;  // a lone word is a password (AUTH password)
    } else {
      e.user = cred.substr(0, colon);
      e.password = cred.substr(colon + 1);
    }
  }
  if (unix_sock) {
    size_t q = rest.find("?db=");
    if (q != std::string::npos) {
      e.db = std::atoi(rest.c_str() + q + 4);
      rest = rest.substr(0, q);
    }
    e.unix_path = rest;
  } else {
    size_t slash = rest.find('/');
    if (slash != std::string::npos) {
      e.db = std::atoi(rest.c_str() + slash + 1);
      rest = rest.substr(0, slash);
    }
    size_t colon = rest.rfind(':');
    if (colon != std::string::npos) {
      e.port = std::atoi(rest.c_str() + colon + 1);
      rest = rest.substr(0, colon);
    }
    if (!rest.empty()) e.host = rest;
  }
  *out = e;
  return true;
}

redisContext *open_context(const std::string &url) {
  Endpoint e;
  if (!parse_url(url, &e)) return nullptr;
  timeval tv{5, 0};
  redisContext *c = e.unix_path.empty()
                        ? redisConnectWithTimeout(e.host.c_str(), e.port, tv)
                        : redisConnectUnixWithTimeout(e.unix_path.c_str(), tv);
  if (!c) return nullptr;
  if (c->err) {
    redisFree(c);
    return nullptr;
  }
  redisSetTimeout(c, timeval{120, 0});  // FLUSHALL of millions of keys takes a while
  auto check = [&](const std::vector<std::string> &args) {
    Reply r = command(c, args);
    return r && r->type != REDIS_REPLY_ERROR;
  };
  bool good = true;
  if (!e.password.empty())
    good = e.user.empty() ? check({"AUTH", e.password}) : check({"AUTH", e.user, e.password});
  if (good && e.db) good = check({"SELECT", std::to_string(e.db)});
  if (good) good = check({"PING"});
  if (!good) {
    redisFree(c);
    return nullptr;
  }
  return c;
}

Admin::Admin(const std::string &url) : ctx_(open_context(url)) {}

Admin::~Admin() {
  if (ctx_) redisFree(ctx_);
}

bool Admin::flushall() {
  if (!ctx_) return false;
  Reply r = command(ctx_, {"FLUSHALL", "SYNC"});
  return r && r->type == REDIS_REPLY_STATUS;
}

int64_t Admin::dbsize() {
  if (!ctx_) return -1;
  Reply r = command(ctx_, {"DBSIZE"});
  return r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
}

double Admin::cpu_seconds() {
  std::string u = info_field("cpu", "used_cpu_user"), y = info_field("cpu", "used_cpu_sys");
  if (u.empty() || y.empty()) return -1;
  return std::atof(u.c_str()) + std::atof(y.c_str());
}

bool Admin::reset_stats() {
  if (!ctx_) return false;
  Reply r = command(ctx_, {"CONFIG", "RESETSTAT"});
  return r && r->type == REDIS_REPLY_STATUS;
}

double Admin::script_usec() {
  if (!ctx_) return -1;
  Reply r = command(ctx_, {"INFO", "commandstats"});
  if (!r || r->type != REDIS_REPLY_STRING) return -1;
  std::string text(r->str, r->len);
  double total = 0;
  for (const char *cmd : {"fcall", "evalsha", "evalsha_ro"}) {
    size_t p = text.find(std::string("cmdstat_") + cmd + ":");
    if (p == std::string::npos) continue;
    size_t u = text.find("usec=", p);
    if (u != std::string::npos && u < text.find('\n', p)) total += std::atof(text.c_str() + u + 5);
  }
  return total;
}

std::string Admin::info_field(const std::string &section, const std::string &field) {
  if (!ctx_) return "";
  Reply r = command(ctx_, {"INFO", section});
  if (!r || r->type != REDIS_REPLY_STRING) return "";
  std::string text(r->str, r->len), key = field + ":";
  size_t p = text.find("\n" + key);
  if (p == std::string::npos) {
    if (text.rfind(key, 0) != 0) return "";
    p = 0;
  } else {
    p += 1;
  }
  size_t end = text.find_first_of("\r\n", p);
  return text.substr(p + key.size(), end - p - key.size());
}

int64_t Admin::used_memory() {
  std::string v = info_field("memory", "used_memory");
  return v.empty() ? -1 : std::atoll(v.c_str());
}

}  // namespace bench
