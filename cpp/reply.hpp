// RAII for hiredis replies and contexts, and small reply readers.
#pragma once

#include <hiredis/hiredis.h>

#include <cstdint>
#include <memory>
#include <string>

namespace echomq {

struct ReplyDeleter {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

struct ContextDeleter {
  void operator()(redisContext* c) const noexcept { redisFree(c); }
};
using ContextPtr = std::unique_ptr<redisContext, ContextDeleter>;

// Readers for elements of a script's reply array; throw EPROTO on a shape
// the scripts never produce (a library/script version mismatch).
int64_t replyInt(const redisReply* r, const char* what);
std::string replyStr(const redisReply* r, const char* what);
const redisReply* replyAt(const redisReply* arr, size_t i, const char* what);

}  // namespace echomq
