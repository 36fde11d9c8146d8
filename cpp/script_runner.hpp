// Loads every script once per connection (SCRIPT LOAD, pipelined) and runs
// them with EVALSHA, or EVALSHA_RO for a script whose first line declares
// `#!lua flags=no-writes`; on NOSCRIPT (a SCRIPT FLUSH, a restart, a
// failover) it reloads that script and retries exactly once.
// The hot scripts (marked `--@function`: take, enqueue, extend) run as
// Valkey functions (FCALL): their helpers are made once, when the library
// loads, not on every call (about 80k instructions a call). A function not
// found (a new server, a FUNCTION FLUSH) is loaded (FUNCTION LOAD) and the
// call retried once; a server or user that cannot run or load functions
// (an ACL without FCALL or FUNCTION LOAD, a replica, a server without
// functions) makes this runner use EVALSHA from then on. Every retry is of
// a call the server refused before running it.
#pragma once

#include <string>
#include <vector>

#include "connection.hpp"
#include "keys.hpp"

namespace echomq {

// One per file of lua/ (the names below must match them: checked at start).
enum class Script { Enqueue, Take, Extend, Weight, Limit, Pause, Defaults, Stats, Lanes, Dead,
                    Redrive, Verify, Rate, Cap, Job, Delete, Purge, Repair, RepairPlan, ShardInit, Shards,
                    Wait, OutConf, Progress, CostMode, WaitConf, Schedule, Schedules,
                    Flow, FlowInfo, DelFlow, Cancel, LifeConf, Burst };

class ScriptRunner {
 public:
  ScriptRunner();
  void loadAll(Connection& conn);
  // Starts a call of script s on queue k in `args`: EVALSHA, a slot for the
  // SHA1, the number of keys, the keys the script uses, the key prefix.
  void begin(Script s, const QueueKeys& k, Argv& args) const;
  // Runs the call begun in `args`. Returns the reply; an error reply other
  // than NOSCRIPT is thrown with the status of replyErrorCode().
  ReplyPtr run(Connection& conn, Script s, Argv& args, int read_timeout_ms = 0);
  // The script's file name ("take") and whether it runs with EVALSHA_RO.
  const char* name(Script s) const { return entries_[static_cast<size_t>(s)].name; }
  bool readOnly(Script s) const { return entries_[static_cast<size_t>(s)].read_only; }

 private:
  struct Entry {
    const char* name;
    std::string text;
    std::vector<unsigned char> keys;
    std::string num_keys;
    std::string sha;
    bool read_only;  // run with EVALSHA_RO
    std::string fn_name, fn_text;  // the function and its library ("" if none)
  };
  void load(Connection& conn, Entry& e);
  // FUNCTION LOAD of e's library: true when it is loaded now or already was.
  bool loadFunction(Connection& conn, const Entry& e);
  std::vector<Entry> entries_;
  bool functions_ = true;  // FCALL for the scripts that have a function
};

}  // namespace echomq
