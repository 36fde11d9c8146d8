#include "tcp_proxy.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <utility>
#include <vector>

namespace emqtest {

TcpProxy::TcpProxy(int target_port) : target_(target_port) {
  listener_ = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(listener_ >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  REQUIRE(bind(listener_, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
  REQUIRE(listen(listener_, 16) == 0);
  socklen_t len = sizeof a;
  REQUIRE(getsockname(listener_, reinterpret_cast<sockaddr *>(&a), &len) == 0);
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([this] { run(); });
}

TcpProxy::~TcpProxy() {
  stop_ = true;
  thread_.join();
  close(listener_);
}

void TcpProxy::partition() {
  forwarding_ = false;
  // Wait until the thread is past any copy it had started.
  while (!parked_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

namespace {

int connect_loopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

// Copies what `from` has to `to`; false when either end is gone. Never
// blocks for long: a write waits for room in 20 ms steps and gives up (the
// bytes are lost in transit, as in a real partition) once the proxy is
// partitioned or stopping, so partition() and the destructor always return.
bool TcpProxy::pump(int from, int to) {
  char buf[16384];
  const ssize_t n = recv(from, buf, sizeof buf, MSG_DONTWAIT);
  if (n == 0) return false;
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  for (ssize_t off = 0; off < n;) {
    if (stop_ || !forwarding_) return true;
    const ssize_t w = send(to, buf + off, static_cast<size_t>(n - off), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w > 0) {
      off += w;
    } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      pollfd p{to, POLLOUT, 0};
      poll(&p, 1, 20);
    } else {
      return false;
    }
  }
  return true;
}

void TcpProxy::run() {
  std::vector<std::pair<int, int>> links;  // (accepted, upstream)
  while (!stop_) {
    std::vector<pollfd> fds{{listener_, POLLIN, 0}};
    const bool fwd = forwarding_;
    if (!fwd) parked_ = true;
    if (fwd) {
      for (const auto &l : links) {
        fds.push_back({l.first, POLLIN, 0});
        fds.push_back({l.second, POLLIN, 0});
      }
    }
    if (poll(fds.data(), fds.size(), 20) <= 0) continue;
    // Only the links polled above have entries in fds; one accepted now
    // is polled from the next round on.
    const size_t polled = fwd ? links.size() : 0;
    if (fds[0].revents & POLLIN) {
      const int in = accept(listener_, nullptr, nullptr);
      if (in >= 0) {
        const int up = connect_loopback(target_);
        if (up >= 0) links.emplace_back(in, up);
        else close(in);
      }
    }
    if (!fwd) continue;
    std::vector<std::pair<int, int>> alive;
    for (size_t i = 0; i < links.size(); ++i) {
      if (i >= polled) {  // accepted this round
        alive.push_back(links[i]);
        continue;
      }
      const pollfd &a = fds[1 + 2 * i], &b = fds[2 + 2 * i];
      bool ok = true;
      if (a.revents & (POLLIN | POLLHUP | POLLERR)) ok = pump(a.fd, b.fd);
      if (ok && (b.revents & (POLLIN | POLLHUP | POLLERR))) ok = pump(b.fd, a.fd);
      if (ok) {
        alive.push_back(links[i]);
      } else {
        close(links[i].first);
        close(links[i].second);
      }
    }
    links.swap(alive);
  }
  for (const auto &l : links) {
    close(l.first);
    close(l.second);
  }
}

}  // namespace emqtest
