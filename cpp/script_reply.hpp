// Reading script replies: {status, ...} arrays whose negative status
// carries a message, and their typed fields.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "error.hpp"
#include "reply.hpp"

namespace echomq {

// Reply arrays start with a status; negative ones carry a message.
inline int scriptStatus(const redisReply* r, const char* what) {
  if (r->type != REDIS_REPLY_ARRAY || r->elements == 0)
    echomq::fail(kProto, std::string(what) + ": unexpected reply shape");
  int64_t st = replyInt(r->element[0], what);
  if (st < 0) {
    std::string msg = r->elements > 1 ? replyStr(r->element[1], what) : std::string(what);
    echomq::fail(static_cast<int>(st), msg);
  }
  return static_cast<int>(st);
}

inline uint64_t u64(const redisReply* arr, size_t i, const char* what) {
  return static_cast<uint64_t>(replyInt(replyAt(arr, i, what), what));
}
inline int64_t i64(const redisReply* arr, size_t i, const char* what) {
  return replyInt(replyAt(arr, i, what), what);
}
inline std::string str(const redisReply* arr, size_t i, const char* what) {
  return replyStr(replyAt(arr, i, what), what);
}
// A bulk string element, not copied: valid while the reply lives.
inline std::string_view view(const redisReply* arr, size_t i, const char* what) {
  const redisReply* e = replyAt(arr, i, what);
  if (e->type != REDIS_REPLY_STRING) echomq::fail(kProto, std::string("unexpected reply for ") + what + ": not a string");
  return std::string_view(e->str, e->len);
}

}  // namespace echomq
