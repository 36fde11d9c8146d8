// Cluster hash slots: the slot of a key, as Valkey computes it (CRC16 of the
// hash tag), and the map of which primary serves which slots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "connection.hpp"

namespace echomq {

constexpr int kSlotCount = 16384;

// The hash slot of a key: CRC16 (XMODEM) of its {tag} if it has a non-empty
// one, else of the whole key, modulo 16384.
int keySlot(const std::string& key);

// The slot a queue's keys live in (all of them share the tag {queue}).
int queueSlot(const std::string& queue);

struct SlotRange {
  int start = 0, end = 0;  // inclusive
  std::string host;
  int port = 0;
  std::string node() const { return host + ":" + std::to_string(port); }
};

// The primaries' slot ranges (CLUSTER SLOTS on conn), by start slot; empty
// when the server is not in cluster mode. Throws as Connection::command.
std::vector<SlotRange> readSlotMap(Connection& conn);

// The range serving `slot`, or nullptr when no primary serves it.
const SlotRange* rangeOf(const std::vector<SlotRange>& map, int slot);

}  // namespace echomq
