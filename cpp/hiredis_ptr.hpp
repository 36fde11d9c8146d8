// RAII owners for hiredis replies and contexts: the one definition shared by
// the core, the tests' raw connection and the benchmark's housekeeping one.
#pragma once

#include <hiredis/hiredis.h>

#include <memory>

namespace echomq {

struct ReplyDeleter {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

struct ContextDeleter {
  void operator()(redisContext* c) const noexcept { redisFree(c); }
};
using ContextPtr = std::unique_ptr<redisContext, ContextDeleter>;

}  // namespace echomq
