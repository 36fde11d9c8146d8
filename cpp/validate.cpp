#include "validate.hpp"

#include <cstring>

#include "error.hpp"

namespace echomq {
namespace {

// Well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF) without
// control characters (C0, DEL, C1). Returns an empty string or the reason.
const char* utf8Problem(const unsigned char* s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c == 0) return "contains a NUL byte";
    if (c < 0x20 || c == 0x7f) return "contains a control character";
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) { len = 2; cp = c & 0x1f; }
    else if ((c & 0xf0) == 0xe0) { len = 3; cp = c & 0x0f; }
    else if ((c & 0xf8) == 0xf0) { len = 4; cp = c & 0x07; }
    else return "is not valid UTF-8";
    if (i + len > n) return "is not valid UTF-8 (truncated sequence)";
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) return "is not valid UTF-8";
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
      return "is not valid UTF-8 (overlong)";
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return "is not valid UTF-8";
    if (cp >= 0x80 && cp <= 0x9f) return "contains a control character";
    i += len;
  }
  return "";
}

}  // namespace

void checkQueueName(const char* queue) {
  if (!queue) invalid("queue name is NULL");
  size_t n = std::strlen(queue);
  if (n == 0) invalid("queue name is empty");
  if (n > kQueueNameMax)
    invalid("queue name is longer than " + std::to_string(kQueueNameMax) + " bytes");
  for (size_t i = 0; i < n; ++i) {
    char ch = queue[i];
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-';
    if (!ok)
      invalid("queue name may hold only A-Z a-z 0-9 _ . - (found '" +
              (static_cast<unsigned char>(ch) < 0x20 ? std::string("\\x") + std::to_string(ch)
                                                    : std::string(1, ch)) +
              "')");
  }
}

void checkGroupBytes(const char* group, size_t n) {
  if (!group) invalid("group name is NULL");
  if (n == 0) invalid("group name is empty");
  if (n > kGroupNameMax)
    invalid("group name is longer than " + std::to_string(kGroupNameMax) + " bytes");
  const char* why = utf8Problem(reinterpret_cast<const unsigned char*>(group), n);
  if (*why) invalid(std::string("group name ") + why);
  if (group[n - 1] == '/' && !isTenantName(group, n))
    invalid("a lane name may not end in '/' (only a tenant's name 'T/' does)");
}

bool isTenantName(const char* group, size_t n) {
  return n > 1 && group[n - 1] == '/' && std::memchr(group, '/', n - 1) == nullptr;
}

void checkLaneBytes(const char* group, size_t n) {
  checkGroupBytes(group, n);
  if (isTenantName(group, n))
    invalid("'" + std::string(group, n) + "' names a tenant, not a lane (a tenant's lanes are '" +
            std::string(group, n) + "<lane>')");
}

void checkLaneName(const char* group) {
  if (!group) invalid("group name is NULL");
  checkLaneBytes(group, std::strlen(group));
}

void checkGroupName(const char* group) {
  if (!group) invalid("group name is NULL");
  checkGroupBytes(group, std::strlen(group));
}

void checkRange(const char* what, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    invalid(std::string(what) + " must be " + std::to_string(lo) + ".." + std::to_string(hi) +
            " (got " + std::to_string(v) + ")");
}

}  // namespace echomq
