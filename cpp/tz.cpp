#include "tz.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <vector>

#include "error.hpp"
#include "types.hpp"

namespace echomq {
namespace {

constexpr int64_t kDay = 86400;

// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm; the
// scripts use the same one: lua/includes/ticks.lua).
int64_t daysFrom(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}
int64_t yearOf(int64_t secs) {
  int64_t z = (secs >= 0 ? secs : secs - kDay + 1) / kDay + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  return yoe + era * 400 + (mp >= 10 ? 1 : 0);
}
bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
int monthLen(int64_t y, int m) {
  static const int k[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : k[m - 1];
}

[[noreturn]] void badZone(const std::string& zone, const std::string& why) {
  invalid("zone '" + zone + "': " + why);
}

// "[+-]hh[:mm[:ss]]" or "hh[mm]" at s[i..]: seconds; i advances. Hours up
// to `maxh`. Returns false when there is none.
bool offsetAt(const std::string& s, size_t& i, int maxh, int64_t& out, bool colonOptional) {
  int sign = 1;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) sign = s[i++] == '-' ? -1 : 1;
  auto digits = [&](size_t maxn, int& v) {
    size_t n = 0;
    v = 0;
    while (i < s.size() && n < maxn && std::isdigit(static_cast<unsigned char>(s[i]))) v = v * 10 + (s[i++] - '0'), ++n;
    return n;
  };
  int h = 0, m = 0, sec = 0;
  if (digits(colonOptional ? 2 : 3, h) == 0 || h > maxh) return false;
  if (i < s.size() && s[i] == ':') {
    ++i;
    if (digits(2, m) != 2 || m > 59) return false;
    if (i < s.size() && s[i] == ':') {
      ++i;
      if (digits(2, sec) != 2 || sec > 59) return false;
    }
  } else if (colonOptional && i < s.size()) {
    if (digits(2, m) != 2 || m > 59) return false;
  }
  out = sign * (h * 3600 + m * 60 + sec);
  return true;
}

// A fixed offset ("+05:30", "UTC+01", "GMT-3", "Z", "UTC"): seconds east.
bool fixedOffset(const std::string& zone, int64_t& off) {
  std::string s = zone;
  if (s.empty() || s == "UTC" || s == "Z" || s == "GMT" || s == "Etc/UTC") {
    off = 0;
    return true;
  }
  if (s.compare(0, 3, "UTC") == 0 || s.compare(0, 3, "GMT") == 0) s = s.substr(3);
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return false;
  size_t i = 0;
  if (!offsetAt(s, i, 18, off, true) || i != s.size()) return false;
  return true;
}

// ---- TZif (RFC 8536) ----

struct Rules {
  std::vector<int64_t> at;   // transition instants (UTC s)
  std::vector<int64_t> off;  // the offset from each on
  int64_t off0 = 0;          // before the first
  std::string footer;        // the POSIX TZ string for after the last
};

int64_t be(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int k = 0; k < n; ++k) v = (v << 8) | p[k];
  if (n == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

Rules readTzif(const std::string& zone, const std::string& bytes) {
  auto need = [&](size_t end) {
    if (end > bytes.size()) badZone(zone, "its zoneinfo file is truncated");
  };
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  need(44);
  if (bytes.compare(0, 4, "TZif") != 0) badZone(zone, "not a TZif zoneinfo file");
  char version = bytes[4];
  size_t pos = 0;
  auto counts = [&](size_t h, int64_t c[6]) {
    need(h + 44);
    for (int k = 0; k < 6; ++k) c[k] = be(b + h + 20 + 4 * k, 4);
  };
  int64_t c[6];  // isutcnt isstdcnt leapcnt timecnt typecnt charcnt
  counts(0, c);
  int tsize = 4;
  size_t data = 44;
  if (version >= '2') {
    size_t v1 = static_cast<size_t>(c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0]);
    size_t h2 = 44 + v1;
    counts(h2, c);
    tsize = 8;
    data = h2 + 44;
  }
  for (int k = 0; k < 6; ++k)
    if (c[k] < 0 || c[k] > 100000) badZone(zone, "its zoneinfo file is malformed");
  size_t times = data, idx = times + c[3] * tsize, types = idx + c[3];
  size_t end = types + c[4] * 6 + c[5] + c[2] * (tsize + 4) + c[1] + c[0];
  need(end);
  if (c[4] < 1) badZone(zone, "its zoneinfo file has no time type");
  std::vector<int64_t> utoff(static_cast<size_t>(c[4]));
  for (int64_t k = 0; k < c[4]; ++k) utoff[k] = be(b + types + 6 * k, 4);
  Rules r;
  r.off0 = utoff[0];
  for (int64_t k = 0; k < c[3]; ++k) {
    unsigned t = b[idx + k];
    if (t >= utoff.size()) badZone(zone, "its zoneinfo file is malformed");
    r.at.push_back(be(b + times + k * tsize, tsize));
    r.off.push_back(utoff[t]);
  }
  pos = end;
  if (version >= '2' && pos < bytes.size() && bytes[pos] == '\n') {
    size_t nl = bytes.find('\n', pos + 1);
    if (nl != std::string::npos) r.footer = bytes.substr(pos + 1, nl - pos - 1);
  }
  return r;
}

// ---- POSIX TZ rules (the footer), for the years past the file's data ----

struct Posix {
  int64_t std = 0, dst = 0;  // offsets east (s)
  bool hasDst = false;
  // A rule date: kind 'M' (m, w, d), 'J' (n, 1..365, no Feb 29) or 'N' (n, 0..365); then time (s).
  struct Date {
    char kind = 'M';
    int m = 0, w = 0, d = 0, n = 0;
    int64_t time = 7200;
  } start, end;
};

bool posixName(const std::string& s, size_t& i) {
  if (i < s.size() && s[i] == '<') {
    size_t close = s.find('>', i);
    if (close == std::string::npos) return false;
    i = close + 1;
    return true;
  }
  size_t from = i;
  while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
  return i - from >= 3;
}

bool posixDate(const std::string& s, size_t& i, Posix::Date& d) {
  auto num = [&](int& v) {
    size_t from = i;
    v = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) v = v * 10 + (s[i++] - '0');
    return i > from;
  };
  if (i < s.size() && s[i] == 'M') {
    ++i;
    d.kind = 'M';
    if (!num(d.m) || i >= s.size() || s[i++] != '.' || !num(d.w) || i >= s.size() || s[i++] != '.' || !num(d.d))
      return false;
    if (d.m < 1 || d.m > 12 || d.w < 1 || d.w > 5 || d.d > 6) return false;
  } else if (i < s.size() && s[i] == 'J') {
    ++i;
    d.kind = 'J';
    if (!num(d.n) || d.n < 1 || d.n > 365) return false;
  } else {
    d.kind = 'N';
    if (!num(d.n) || d.n > 365) return false;
  }
  if (i < s.size() && s[i] == '/') {
    ++i;
    // RFC 8536: the time may run from -167 to 167 hours.
    if (!offsetAt(s, i, 167, d.time, false)) return false;
  }
  return true;
}

bool parsePosix(const std::string& s, Posix& p) {
  size_t i = 0;
  int64_t o;
  if (!posixName(s, i) || !offsetAt(s, i, 24, o, false)) return false;
  p.std = -o;  // POSIX offsets count west
  if (i == s.size()) return true;
  if (!posixName(s, i)) return false;
  p.hasDst = true;
  p.dst = p.std + 3600;
  if (i < s.size() && s[i] != ',') {
    if (!offsetAt(s, i, 24, o, false)) return false;
    p.dst = -o;
  }
  if (i >= s.size() || s[i++] != ',' || !posixDate(s, i, p.start) || i >= s.size() || s[i++] != ',' ||
      !posixDate(s, i, p.end))
    return false;
  return i == s.size();
}

// The local second (from local midnight of Jan 1 of y, as seconds since the
// epoch) of rule date d in year y.
int64_t ruleLocal(const Posix::Date& d, int64_t y) {
  int64_t day;
  if (d.kind == 'M') {
    int64_t first = daysFrom(y, d.m, 1);
    int dow1 = static_cast<int>(((first + 4) % 7 + 7) % 7);
    int dom = 1 + (d.d - dow1 + 7) % 7 + (d.w - 1) * 7;
    if (dom > monthLen(y, d.m)) dom -= 7;
    day = first + dom - 1;
  } else if (d.kind == 'J') {
    int n = d.n;  // 1..365, Feb 29 never counted
    day = daysFrom(y, 1, 1) + n - 1 + (leap(y) && n >= 60 ? 1 : 0);
  } else {
    day = daysFrom(y, 1, 1) + d.n;
  }
  return day * kDay + d.time;
}

}  // namespace

std::string zoneRules(const std::string& zone, int64_t now_ms) {
  if (zone.size() > kScheduleZoneMax)
    invalid("zone: a name is at most " + std::to_string(kScheduleZoneMax) + " bytes");
  int64_t fixed;
  if (fixedOffset(zone, fixed)) {
    if (fixed < -18 * 3600 || fixed > 18 * 3600) badZone(zone, "an offset is at most 18 hours");
    return std::to_string(fixed);
  }
  // An IANA name: letters, digits, '_', '-', '+' in '/'-separated parts,
  // none starting with '.' (no way out of the zoneinfo directory).
  bool ok = !zone.empty() && zone[0] != '/' && zone.back() != '/';
  for (size_t i = 0; ok && i < zone.size(); ++i) {
    char ch = zone[i];
    ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '+' || ch == '/';
    if (ch == '/' && i + 1 < zone.size() && zone[i + 1] == '/') ok = false;
  }
  if (!ok || zone[0] == '-' || zone.find("/-") != std::string::npos)
    badZone(zone, "not a zone name (UTC, an offset such as +05:30, or an IANA name such as Europe/Paris)");
  const char* dir = std::getenv("TZDIR");
  std::string path = std::string(dir && *dir ? dir : "/usr/share/zoneinfo") + "/" + zone;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) badZone(zone, "unknown zone (no " + path + ")");
  if (st.st_size > 1 << 20) badZone(zone, "its zoneinfo file is too large");
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) badZone(zone, "cannot read " + path);
  Rules r = readTzif(zone, bytes);

  int64_t year = yearOf(now_ms / 1000);
  int64_t from = daysFrom(year - 1, 1, 1) * kDay, to = daysFrom(year + kZoneYearsAhead, 1, 1) * kDay;
  // Past the explicit transitions, the footer's rule makes more.
  std::vector<int64_t> at = r.at, off = r.off;
  Posix p;
  if (!r.footer.empty()) {
    if (!parsePosix(r.footer, p)) badZone(zone, "its rule '" + r.footer + "' is not understood");
    int64_t last = at.empty() ? from - 1 : at.back();
    int64_t cur = off.empty() ? r.off0 : off.back();
    if (!p.hasDst) {
      if (p.std != cur) {
        at.push_back(std::max(last + 1, from));
        off.push_back(p.std);
      }
    } else {
      for (int64_t y = std::min(yearOf(std::max(last, from)), year) - 1; y <= year + kZoneYearsAhead; ++y) {
        // Start: a local time in standard time; end: in daylight time.
        std::pair<int64_t, int64_t> ev[2] = {{ruleLocal(p.start, y) - p.std, p.dst},
                                             {ruleLocal(p.end, y) - p.dst, p.std}};
        if (ev[1].first < ev[0].first) std::swap(ev[0], ev[1]);
        for (const auto& e : ev) {
          if (e.first <= last) continue;
          if (e.second != cur) {
            at.push_back(e.first);
            off.push_back(e.second);
            cur = e.second;
          }
          last = e.first;
        }
      }
    }
  }
  // The window: the offset in force at its start, then each change in it.
  int64_t off0 = r.off0;
  std::string out;
  std::string changes;
  int64_t cur = 0;
  bool started = false;
  for (size_t i = 0; i < at.size(); ++i) {
    if (at[i] <= from) {
      off0 = off[i];
      continue;
    }
    if (at[i] >= to) break;
    if (!started) {
      cur = off0;
      started = true;
    }
    if (off[i] == cur) continue;
    changes += " " + std::to_string(at[i]) + ":" + std::to_string(off[i]);
    cur = off[i];
  }
  return std::to_string(off0) + changes;
}

}  // namespace echomq
