#include "job_record.hpp"

#include <charconv>
#include <limits>

#include "error.hpp"
#include "job_meta.hpp"

namespace echomq {

namespace {

[[noreturn]] void bad(const char* what) {
  fail(kProto, std::string("claim: malformed ") + what + " (a library/script version mismatch?)");
}

// Digits up to the next space (or the end when `last`); s advances past them
// and the space.
template <typename T>
T field(std::string_view& s, const char* what, bool last = false) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data()) bad(what);
  size_t used = static_cast<size_t>(p - s.data());
  if (last && used == s.size()) {
    s.remove_prefix(used);
    return v;
  }
  if (used >= s.size() || s[used] != ' ') bad(what);
  s.remove_prefix(used + 1);
  return v;
}

}  // namespace

void readRecord(std::string_view rec, Job& j) {
  j.enqueued_at_ms = field<int64_t>(rec, "job record");
  j.allowed = field<uint64_t>(rec, "job record");
  uint64_t mx = field<uint64_t>(rec, "job record");
  if (mx > std::numeric_limits<uint32_t>::max()) bad("job record");
  j.max_attempts = static_cast<uint32_t>(mx);
  // "<group bytes> " or, with a name or headers, "<group bytes>:<meta bytes> ".
  size_t gl = 0, ml = 0;
  auto [p, ec] = std::from_chars(rec.data(), rec.data() + rec.size(), gl);
  if (ec != std::errc() || p == rec.data()) bad("job record");
  rec.remove_prefix(static_cast<size_t>(p - rec.data()));
  if (!rec.empty() && rec[0] == ':') {
    rec.remove_prefix(1);
    ml = field<size_t>(rec, "job record");
  } else {
    if (rec.empty() || rec[0] != ' ') bad("job record");
    rec.remove_prefix(1);
  }
  if (gl == 0 || gl > rec.size() || ml > rec.size() - gl) bad("job record");
  j.group.assign(rec.data(), gl);
  if (ml > 0) readMeta(rec.substr(gl, ml), j);
  j.payload.assign(rec.data() + gl + ml, rec.size() - gl - ml);
}

void readDelivery(std::string_view att, Job& j) {
  j.token = field<uint64_t>(att, "delivery state");
  j.attempts = field<uint64_t>(att, "delivery state");
  // The lane (the record has it too), then the last error after "\n".
  size_t nl = att.find('\n');
  if (att.empty() || nl == 0) bad("delivery state");
  j.last_error.assign(nl == std::string_view::npos ? std::string_view() : att.substr(nl + 1));
}

}  // namespace echomq
