#include "validate.hpp"

#include <cstdio>
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

// A name as the messages show it: quoted, at most kShownMax bytes (cut on a
// character boundary, "..." after a cut), bytes that are not printable UTF-8
// as \xNN, so a 300-byte or binary name never fills the message.
std::string shownName(const char* s, size_t n) {
  constexpr size_t kShownMax = 32;
  std::string out = "'";
  size_t i = 0;
  while (i < n && i < kShownMax) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (len > 1 && i + len <= n && !*utf8Problem(reinterpret_cast<const unsigned char*>(s + i), len)) {
      if (i + len > kShownMax) break;
      out.append(s + i, len);
      i += len;
      continue;
    }
    if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  out += i < n ? "...'" : "'";
  return out;
}

const char* const kNameRule =
    "a name is LANE, TENANT/LANE, or TENANT/ for the tenant itself; neither part is empty or holds '/'";

}  // namespace

void checkQueueName(const char* queue) {
  if (!queue) invalid("queue name is NULL");
  size_t n = std::strlen(queue);
  if (n == 0) invalid("queue name is empty");
  if (n > kQueueNameMax)
    invalid("queue name " + shownName(queue, n) + " is " + std::to_string(n) + " bytes long, over the " +
            std::to_string(kQueueNameMax) + "-byte limit");
  for (size_t i = 0; i < n; ++i) {
    char ch = queue[i];
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '-';
    if (!ok)
      invalid("queue name " + shownName(queue, n) + " may hold only A-Z a-z 0-9 _ . - (found " +
              shownName(queue + i, 1) + ")");
  }
}

void checkGroupBytes(const char* group, size_t n) {
  if (!group) invalid("group name is NULL");
  if (n == 0) invalid("group name is empty");
  if (n > kGroupNameMax)
    invalid("group name " + shownName(group, n) + " is " + std::to_string(n) + " bytes long, over the " +
            std::to_string(kGroupNameMax) + "-byte limit");
  const char* why = utf8Problem(reinterpret_cast<const unsigned char*>(group), n);
  if (*why) invalid("group name " + shownName(group, n) + " " + why);
  // Tenants (docs/keys.md, "Tenants"): at most one '/', with a non-empty
  // tenant part before it; the lane part after it holds no '/'.
  const char* slash = static_cast<const char*>(std::memchr(group, '/', n));
  if (!slash) return;
  if (slash == group) invalid("group name " + shownName(group, n) + " has an empty tenant part (" + kNameRule + ")");
  if (std::memchr(slash + 1, '/', n - static_cast<size_t>(slash + 1 - group)))
    invalid("group name " + shownName(group, n) + " holds more than one '/' (" + kNameRule + ")");
}

bool isTenantName(const char* group, size_t n) {
  return n > 1 && group[n - 1] == '/' && std::memchr(group, '/', n - 1) == nullptr;
}

void checkLaneBytes(const char* group, size_t n) {
  checkGroupBytes(group, n);
  if (isTenantName(group, n)) {
    const std::string shown = shownName(group, n);
    invalid(shown + " names a tenant, not a lane (a tenant's lanes are " + shown.substr(0, shown.size() - 1) +
            "<lane>')");
  }
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
