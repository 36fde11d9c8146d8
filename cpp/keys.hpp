// The fixed keys of a queue, named once in lua/keys.txt (generated into the
// scripts and into scripts::kKeyNames). docs/keys.md lists them all.
#pragma once

#include <string>
#include <vector>

namespace echomq {

struct QueueKeys {
  std::string queue;
  std::string prefix;             // "emq:{q}:": the hash tag keeps a queue in one slot
  std::vector<std::string> keys;  // prefix + name, in the order of lua/keys.txt
  // The key called `name` (e.g. "wake"); throws EINTERNAL for an unknown one.
  const std::string& key(const char* name) const;
};

// Assumes a validated queue name.
QueueKeys makeQueueKeys(const std::string& queue);

}  // namespace echomq
