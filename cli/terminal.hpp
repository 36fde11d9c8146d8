// Full-screen terminal for `echomq top`: raw input (no echo, no line
// buffering), the alternate screen, and a restore that also runs on
// SIGINT/SIGTERM/SIGHUP, so the shell is never left in a broken state.
#pragma once

#include <string>
#include <vector>

namespace emqcli {

/// RAII: the constructor enters raw mode and the alternate screen, the
/// destructor (or a fatal signal) restores the terminal exactly.
class Terminal {
 public:
  /// Throws a usage error when stdin/stdout is not a terminal.
  Terminal();
  ~Terminal();
  Terminal(const Terminal &) = delete;
  Terminal &operator=(const Terminal &) = delete;

  /// Wait up to `timeout_ms` for a key; returns the byte, or -1 on timeout
  /// and -2 when the window was resized (redraw now).
  int read_key(int timeout_ms);

  /// Current size in rows and columns (24x80 if unknown).
  void size(int &rows, int &cols) const;

  /// Draw a frame: home, each line cleared to its end, the rest erased.
  void draw(const std::vector<std::string> &lines);
};

}  // namespace emqcli
