#include "test_env.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace emqtest {

std::string server_url() {
  if (const char *url = std::getenv("ECHOMQ_TEST_URL")) {
    if (*url) return url;
  }
  const char *file = std::getenv("ECHOMQ_TEST_URL_FILE");
  INFO("set ECHOMQ_TEST_URL or ECHOMQ_TEST_URL_FILE (ctest sets the file)");
  REQUIRE(file != nullptr);
  std::ifstream in(file);
  INFO("cannot read the URL file " << file << " (is the valkey fixture running?)");
  REQUIRE(in.good());
  std::string url;
  std::getline(in, url);
  REQUIRE(!url.empty());
  return url;
}

Endpoint server_endpoint() {
  // valkey://[user[:password]@]host[:port][/db]: enough to reach the same server.
  const std::string url = server_url();
  const auto scheme = url.find("://");
  INFO("test URL " << url);
  REQUIRE(scheme != std::string::npos);
  std::string rest = url.substr(scheme + 3);
  Endpoint ep;
  const auto at = rest.rfind('@');
  if (at != std::string::npos) {
    const std::string cred = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const auto colon = cred.find(':');
    if (colon == std::string::npos) {
      ep.password = cred;
    } else {
      ep.user = cred.substr(0, colon);
      ep.password = cred.substr(colon + 1);
    }
  }
  const auto slash = rest.find_first_of("/?");
  if (slash != std::string::npos) rest = rest.substr(0, slash);
  const auto colon = rest.rfind(':');
  if (colon != std::string::npos) {
    ep.port = std::atoi(rest.substr(colon + 1).c_str());
    rest = rest.substr(0, colon);
  }
  ep.host = rest;
  return ep;
}

std::string server_socket_path() {
  if (const char *url = std::getenv("ECHOMQ_TEST_URL")) {
    if (*url) return std::string();
  }
  const char *file = std::getenv("ECHOMQ_TEST_URL_FILE");
  if (file == nullptr) return std::string();
  std::string path(file);
  const auto slash = path.rfind('/');
  return (slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/valkey.sock";
}

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  REQUIRE(bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) == 0);
  close(fd);
  return ntohs(addr.sin_port);
}

PrivateServer::PrivateServer(int port, std::string extra) : port_(port), extra_(std::move(extra)) {
  char tmpl[] = "/tmp/emq-private-valkey-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  dir_ = tmpl;
}

PrivateServer::~PrivateServer() {
  if (running_) stop();
  const std::string rm = "rm -rf '" + dir_ + "'";
  if (std::system(rm.c_str()) != 0) {
    // Nothing to do: a leftover temp dir is harmless.
  }
}

void PrivateServer::start() {
  const char *bin = std::getenv("VALKEY_SERVER");
  const std::string cmd = std::string(bin ? bin : "valkey-server") + " --bind 127.0.0.1 --port " +
                          std::to_string(port_) + " --dir '" + dir_ +
                          "' --save '' --appendonly no --daemonize yes --pidfile '" + dir_ +
                          "/valkey.pid' --logfile '" + dir_ + "/valkey.log' " + extra_;
  INFO("starting " << cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
  running_ = true;
  for (int i = 0; i < 200; ++i) {  // up to 10 s
    redisContext *ctx = redisConnect("127.0.0.1", port_);
    const bool up = ctx != nullptr && ctx->err == 0;
    redisFree(ctx);
    if (up) return;
    sleep_ms(50);
  }
  FAIL("private valkey-server did not come up on port " << port_);
}

void PrivateServer::stop() {
  std::ifstream in(dir_ + "/valkey.pid");
  long pid = 0;
  in >> pid;
  running_ = false;
  if (pid <= 0) return;
  // A crash, not a shutdown: the connections drop at once (and SIGTERM takes
  // valkey about two seconds here).
  kill(static_cast<pid_t>(pid), SIGKILL);
  // Wait for the port, not the pid: a killed daemon may linger as a zombie
  // until its adoptive parent reaps it.
  for (int i = 0; i < 200; ++i) {
    redisContext *ctx = redisConnect("127.0.0.1", port_);
    const bool up = ctx != nullptr && ctx->err == 0;
    redisFree(ctx);
    if (!up) return;
    sleep_ms(10);
  }
}

std::string PrivateServer::url() const { return "valkey://127.0.0.1:" + std::to_string(port_); }

ClientPtr connect_client(const echomq_client_options *opts, const std::string &url) {
  echomq_client *raw = nullptr;
  const int rc = echomq_client_new(&raw, opts);
  INFO("echomq_client_new -> " << rc << " (" << echomq_strerror(rc) << ")");
  REQUIRE(rc == ECHOMQ_OK);
  REQUIRE(raw != nullptr);
  ClientPtr c(raw);
  const std::string target = url.empty() ? server_url() : url;
  INFO("connecting to " << target);
  EMQ_REQUIRE_OK(c.get(), echomq_client_connect(c.get(), target.c_str()));
  return c;
}

WorkerPtr start_worker(const std::string &queue, const echomq_worker_options &o, const std::string &url) {
  echomq_worker *w = nullptr;
  const std::string target = url.empty() ? server_url() : url;
  REQUIRE(echomq_worker_new(&w, target.c_str(), queue.c_str(), &o) == ECHOMQ_OK);
  WorkerPtr p(w);
  REQUIRE(echomq_worker_start(w) == ECHOMQ_OK);
  return p;
}

echomq_worker_stats worker_stats(echomq_worker *w) {
  echomq_worker_stats s{};
  s.version = ECHOMQ_WORKER_STATS_VERSION;
  REQUIRE(echomq_worker_stats_get(w, &s) == ECHOMQ_OK);
  return s;
}

void enqueue_spread(echomq_client *c, const std::string &queue, int n, int lanes) {
  BatchPtr b(echomq_batch_create());
  for (int i = 0; i < n; ++i) {
    const std::string g = "L" + std::to_string(i % lanes), p = std::to_string(i);
    REQUIRE(echomq_batch_add(b.get(), g.c_str(), p.data(), p.size()) == ECHOMQ_OK);
  }
  EMQ_REQUIRE_OK(c, echomq_enqueue_batch(c, queue.c_str(), b.get(), nullptr));
}

JobPtr get_job(echomq_client *c, const std::string &queue, uint64_t id) {
  echomq_job *raw = nullptr;
  EMQ_REQUIRE_OK(c, echomq_get_job(c, queue.c_str(), id, &raw));
  REQUIRE(raw != nullptr);
  return JobPtr(raw);
}

std::string fresh_queue(const std::string &tag) {
  static std::atomic<unsigned> counter{0};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  std::ostringstream name;
  name << "t." << tag << "." << getpid() << "."
       << std::chrono::duration_cast<std::chrono::milliseconds>(now).count() % 100000000 << "."
       << counter++;
  return name.str();
}

std::string describe(echomq_client *c, int rc) {
  std::ostringstream out;
  out << rc << " (" << echomq_strerror(rc) << ")";
  if (c != nullptr) out << ": \"" << echomq_client_errmsg(c) << "\"";
  return out.str();
}

std::vector<std::string> violations(echomq_client *c, const std::string &queue) {
  echomq_report *raw = nullptr;
  EMQ_REQUIRE_OK(c, echomq_verify(c, queue.c_str(), &raw));
  REQUIRE(raw != nullptr);
  ReportPtr report(raw);
  std::vector<std::string> lines;
  for (size_t i = 0; i < echomq_report_count(report.get()); ++i) {
    const char *line = echomq_report_at(report.get(), i);
    lines.push_back(line ? line : "<NULL line>");
  }
  return lines;
}

void require_verified(echomq_client *c, const std::string &queue) {
  const auto lines = violations(c, queue);
  std::ostringstream all;
  for (const auto &line : lines) all << "\n  " << line;
  INFO("echomq_verify(" << queue << ") reported " << lines.size() << " violation(s):" << all.str());
  REQUIRE(lines.empty());
}

uint64_t enqueue(echomq_client *c, const std::string &queue, const std::string &group,
                 const std::string &payload, const echomq_enqueue_options *opts) {
  uint64_t id = 0;
  EMQ_REQUIRE_OK(c, echomq_enqueue(c, queue.c_str(), group.c_str(), payload.data(),
                                   payload.size(), opts, &id));
  REQUIRE(id > 0);
  return id;
}

JobPtr claim(echomq_client *c, const std::string &queue, int64_t lease_ms) {
  echomq_job *raw = nullptr;
  const int rc = echomq_claim(c, queue.c_str(), lease_ms, &raw);
  INFO("echomq_claim(" << queue << ") -> " << describe(c, rc));
  REQUIRE((rc == ECHOMQ_OK || rc == ECHOMQ_EMPTY));
  if (rc == ECHOMQ_EMPTY) {
    REQUIRE(raw == nullptr);
    return JobPtr();
  }
  REQUIRE(raw != nullptr);
  return JobPtr(raw);
}

JobListPtr wclaim(echomq_client *c, const std::string &queue, int64_t lease_ms, uint32_t max) {
  echomq_job_list *raw = nullptr;
  const int rc = echomq_wclaim(c, queue.c_str(), lease_ms, max, &raw);
  INFO("echomq_wclaim(" << queue << ", max " << max << ") -> " << describe(c, rc));
  REQUIRE((rc == ECHOMQ_OK || rc == ECHOMQ_EMPTY));
  if (rc == ECHOMQ_EMPTY) {
    REQUIRE(raw == nullptr);
    return JobListPtr();
  }
  REQUIRE(raw != nullptr);
  REQUIRE(echomq_job_list_count(raw) >= 1);
  return JobListPtr(raw);
}

void ack(echomq_client *c, const std::string &queue, const echomq_job *job) {
  REQUIRE(job != nullptr);
  EMQ_REQUIRE_OK(c, echomq_ack(c, queue.c_str(), echomq_job_id(job), echomq_job_token(job)));
}

echomq_queue_stats stats(echomq_client *c, const std::string &queue) {
  echomq_queue_stats s{};
  s.version = ECHOMQ_QUEUE_STATS_VERSION;
  EMQ_REQUIRE_OK(c, echomq_stats(c, queue.c_str(), &s));
  return s;
}

echomq_lane_info lane(echomq_client *c, const std::string &queue, const std::string &group) {
  echomq_lane_info info{};
  info.version = ECHOMQ_LANE_INFO_VERSION;
  EMQ_REQUIRE_OK(c, echomq_lane(c, queue.c_str(), group.c_str(), &info));
  return info;
}

std::string payload_of(const echomq_job *job) {
  size_t len = 0;
  const char *data = echomq_job_payload(job, &len);
  REQUIRE(len == echomq_job_payload_len(job));
  return std::string(data ? data : "", len);
}

int64_t mono_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void sleep_ms(int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace emqtest
