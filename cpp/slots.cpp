#include "slots.hpp"

#include <algorithm>
#include <cstring>

#include "error.hpp"
#include "reply.hpp"

namespace echomq {
namespace {

uint16_t crc16(const char* p, size_t n) {
  uint16_t crc = 0;
  for (size_t i = 0; i < n; ++i) {
    crc ^= static_cast<uint16_t>(static_cast<unsigned char>(p[i]) << 8);
    for (int b = 0; b < 8; ++b)
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021) : static_cast<uint16_t>(crc << 1);
  }
  return crc;
}

}  // namespace

int keySlot(const std::string& key) {
  auto open = key.find('{');
  if (open != std::string::npos) {
    auto close = key.find('}', open + 1);
    if (close != std::string::npos && close > open + 1)
      return crc16(key.data() + open + 1, close - open - 1) % kSlotCount;
  }
  return crc16(key.data(), key.size()) % kSlotCount;
}

int queueSlot(const std::string& queue) { return crc16(queue.data(), queue.size()) % kSlotCount; }

std::vector<SlotRange> readSlotMap(Connection& conn) {
  Argv a;
  a.ref("CLUSTER", 7);
  a.ref("SLOTS", 5);
  ReplyPtr r = conn.command(a);
  std::vector<SlotRange> out;
  if (r->type == REDIS_REPLY_ERROR) {
    // "ERR This instance has cluster support disabled": a single server.
    if (std::strstr(r->str, "cluster support disabled")) return out;
    throwReplyError(r.get(), "CLUSTER SLOTS");
  }
  if (r->type != REDIS_REPLY_ARRAY) fail(kProto, "CLUSTER SLOTS: unexpected reply shape");
  for (size_t i = 0; i < r->elements; ++i) {
    const redisReply* e = r->element[i];
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 || e->element[2]->type != REDIS_REPLY_ARRAY ||
        e->element[2]->elements < 2)
      fail(kProto, "CLUSTER SLOTS: unexpected range shape");
    SlotRange s;
    s.start = static_cast<int>(e->element[0]->integer);
    s.end = static_cast<int>(e->element[1]->integer);
    const redisReply* node = e->element[2];
    s.host = node->element[0]->type == REDIS_REPLY_STRING ? std::string(node->element[0]->str, node->element[0]->len)
                                                          : std::string();
    s.port = static_cast<int>(node->element[1]->integer);
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const SlotRange& a, const SlotRange& b) { return a.start < b.start; });
  return out;
}

const SlotRange* rangeOf(const std::vector<SlotRange>& map, int slot) {
  for (const SlotRange& s : map)
    if (slot >= s.start && slot <= s.end) return &s;
  return nullptr;
}

}  // namespace echomq
