// Loads every script once per connection (SCRIPT LOAD, pipelined) and runs
// them with EVALSHA; on NOSCRIPT (a SCRIPT FLUSH, a restart, a failover) it
// reloads that script and retries exactly once.
#pragma once

#include <string>
#include <vector>

#include "connection.hpp"
#include "keys.hpp"

namespace echomq {

// One per file of lua/ (the names below must match them: checked at start).
enum class Script { Enqueue, Take, Extend, Weight, Limit, Pause, Defaults, Stats, Lanes, Dead,
                    Redrive, Verify, Rate, Cap };

class ScriptRunner {
 public:
  ScriptRunner();
  void loadAll(Connection& conn);
  // Starts a call of script s on queue k in `args`: EVALSHA, a slot for the
  // SHA1, the number of keys, the keys the script uses, the key prefix.
  void begin(Script s, const QueueKeys& k, Argv& args) const;
  // Runs the call begun in `args`. Returns the reply; an error reply other
  // than NOSCRIPT is thrown as ESERVER/ENOPERM.
  ReplyPtr run(Connection& conn, Script s, Argv& args, int read_timeout_ms = 0);

 private:
  struct Entry {
    const char* name;
    std::string text;
    std::vector<unsigned char> keys;
    std::string num_keys;
    std::string sha;
  };
  void load(Connection& conn, Entry& e);
  std::vector<Entry> entries_;
};

}  // namespace echomq
