// Loads every script once per connection (SCRIPT LOAD, pipelined) and runs
// them with EVALSHA, or EVALSHA_RO for a script whose first line declares
// `#!lua flags=no-writes`; on NOSCRIPT (a SCRIPT FLUSH, a restart, a
// failover) it reloads that script and retries exactly once.
#pragma once

#include <string>
#include <vector>

#include "connection.hpp"

namespace echomq {

enum class Script { Enqueue, Claim, Ack, AckMany, Fail, Extend, Weight, Limit, Pause, Defaults, Stats,
                    Lanes, Dead, Redrive, Verify };

class ScriptRunner {
 public:
  ScriptRunner();
  void loadAll(Connection& conn);
  // Runs the script with argv = keys + args already in `args` after the
  // first three slots, which this fills (EVALSHA, sha, numkeys). Returns the
  // reply; an error reply other than NOSCRIPT is thrown with the status of
  // replyErrorCode().
  ReplyPtr run(Connection& conn, Script s, Argv& args, int read_timeout_ms = 0);
  // Leading slots to reserve in an Argv before pushing keys and arguments.
  static void begin(Argv& a);
  // SHA1 of a loaded script (for pipelines, after a run() of it).
  const std::string& sha(Script s) const { return entries_[static_cast<size_t>(s)].sha; }
  bool readOnly(Script s) const { return entries_[static_cast<size_t>(s)].read_only; }

 private:
  struct Entry {
    const char* name;
    int num_keys;
    std::string text;
    std::string sha;
    bool read_only;  // run with EVALSHA_RO
  };
  void load(Connection& conn, Entry& e);
  std::vector<Entry> entries_;
};

}  // namespace echomq
