#include "reply.hpp"

#include <cerrno>
#include <cstdlib>

#include "error.hpp"

namespace echomq {

int64_t replyInt(const redisReply* r, const char* what) {
  if (r->type == REDIS_REPLY_INTEGER) return r->integer;
  if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(r->str, &end, 10);
    if (errno == 0 && end != r->str && *end == '\0') return v;
  }
  fail(kProto, std::string("unexpected reply for ") + what + ": not an integer");
}

std::string replyStr(const redisReply* r, const char* what) {
  if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS)
    return std::string(r->str, r->len);
  if (r->type == REDIS_REPLY_INTEGER) return std::to_string(r->integer);
  if (r->type == REDIS_REPLY_NIL) return std::string();
  fail(kProto, std::string("unexpected reply for ") + what + ": not a string");
}

const redisReply* replyAt(const redisReply* arr, size_t i, const char* what) {
  if (arr->type != REDIS_REPLY_ARRAY || i >= arr->elements)
    fail(kProto, std::string("unexpected reply for ") + what + ": short array");
  return arr->element[i];
}

}  // namespace echomq
