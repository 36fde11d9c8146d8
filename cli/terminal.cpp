#include "terminal.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "errors.hpp"

namespace emqcli {
namespace {

// Shared with the signal handler, which may only do async-signal-safe work.
struct termios g_saved;
volatile sig_atomic_t g_active = 0;
volatile sig_atomic_t g_resized = 0;

const char kEnter[] = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J";
const char kLeave[] = "\x1b[?25h\x1b[?1049l";

void write_all(const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(STDOUT_FILENO, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void restore() {
  if (!g_active) return;
  g_active = 0;
  write_all(kLeave, sizeof kLeave - 1);
  tcsetattr(STDIN_FILENO, TCSANOW, &g_saved);
}

void on_fatal_signal(int sig) {
  restore();
  // Die of the same signal, so the parent sees the usual status.
  signal(sig, SIG_DFL);
  raise(sig);
}

void on_winch(int) { g_resized = 1; }

}  // namespace

Terminal::Terminal() {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
    throw usage_error("top: needs a terminal (use --once for a single frame)");
  if (tcgetattr(STDIN_FILENO, &g_saved) != 0)
    throw CliError(kExitFailure, std::string("top: cannot read terminal settings: ") +
                                     std::strerror(errno));
  struct termios raw = g_saved;
  // Keys arrive one by one without echo; ISIG stays on so Ctrl-C is a
  // SIGINT, which the handler below turns into a clean exit.
  raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO | IEXTEN));
  raw.c_iflag &= static_cast<tcflag_t>(~(IXON | ICRNL));
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  sigaction(SIGQUIT, &sa, nullptr);
  sa.sa_handler = on_winch;
  sigaction(SIGWINCH, &sa, nullptr);
  if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) != 0)
    throw CliError(kExitFailure, std::string("top: cannot set raw mode: ") + std::strerror(errno));
  g_active = 1;
  write_all(kEnter, sizeof kEnter - 1);
}

Terminal::~Terminal() {
  restore();
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  signal(SIGWINCH, SIG_DFL);
}

int Terminal::read_key(int timeout_ms) {
  if (g_resized) {
    g_resized = 0;
    return -2;
  }
  struct pollfd p = {STDIN_FILENO, POLLIN, 0};
  int rc = poll(&p, 1, timeout_ms < 0 ? 0 : timeout_ms);
  if (rc < 0) {
    if (errno == EINTR && g_resized) {
      g_resized = 0;
      return -2;
    }
    return -1;
  }
  if (rc == 0) return -1;
  unsigned char ch = 0;
  ssize_t n = ::read(STDIN_FILENO, &ch, 1);
  return n == 1 ? ch : -1;
}

void Terminal::size(int &rows, int &cols) const {
  struct winsize ws;
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
    rows = ws.ws_row;
    cols = ws.ws_col;
  } else {
    rows = 24;
    cols = 80;
  }
}

void Terminal::draw(const std::vector<std::string> &lines) {
  std::string out = "\x1b[H";
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "\r\n";
    out += lines[i];
    out += "\x1b[K";
  }
  out += "\x1b[J";
  write_all(out.data(), out.size());
}

}  // namespace emqcli
