// The fixed keys of a queue, in the order every script receives them
// (lua/includes/keys.lua reads the same order). docs/keys.md lists them all.
#pragma once

#include <array>
#include <string>

namespace echomq {

constexpr size_t kNumKeys = 15;

struct QueueKeys {
  std::string queue;
  std::string prefix;  // "emq:{q}:": the hash tag keeps a queue in one slot
  std::array<std::string, kNumKeys> keys;
};

// Assumes a validated queue name.
QueueKeys makeQueueKeys(const std::string& queue);

}  // namespace echomq
