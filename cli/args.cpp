#include "args.hpp"

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "errors.hpp"

namespace emqcli {

std::string Args::get(const std::string &name, const std::string &fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

const std::vector<std::string> &Args::all(const std::string &name) const {
  static const std::vector<std::string> none;
  auto it = lists_.find(name);
  return it == lists_.end() ? none : it->second;
}

bool looks_numeric(const std::string &word) {
  size_t i = (!word.empty() && (word[0] == '-' || word[0] == '+')) ? 1 : 0;
  if (i >= word.size()) return false;
  bool digit = false;
  for (; i < word.size(); ++i) {
    char ch = word[i];
    if (ch >= '0' && ch <= '9') {
      digit = true;
    } else if (ch != '.') {
      return false;
    }
  }
  return digit;
}

namespace {

const OptSpec *find_long(const std::vector<OptSpec> &specs, const std::string &name) {
  for (const auto &s : specs)
    if (name == s.name) return &s;
  return nullptr;
}

const OptSpec *find_short(const std::vector<OptSpec> &specs, char c) {
  for (const auto &s : specs)
    if (s.short_name != 0 && s.short_name == c) return &s;
  return nullptr;
}

}  // namespace

Args parse_args(const std::vector<std::string> &argv, const std::vector<OptSpec> &specs,
                const std::string &command) {
  Args out;
  const std::string where = command.empty() ? "" : command + ": ";
  bool only_positionals = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string &word = argv[i];
    if (only_positionals || word.size() < 2 || word[0] != '-' || looks_numeric(word)) {
      out.positionals_.push_back(word);
      continue;
    }
    if (word == "--") {
      only_positionals = true;
      continue;
    }
    if (word[1] == '-') {
      std::string name = word.substr(2);
      std::string value;
      bool inline_value = false;
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        inline_value = true;
      }
      const OptSpec *spec = find_long(specs, name);
      if (spec == nullptr) throw usage_error(where + "unknown option '--" + name + "'");
      if (spec->value_name == nullptr) {
        if (inline_value) throw usage_error(where + "option '--" + name + "' takes no value");
        out.values_[name] = "";
      } else {
        if (!inline_value) {
          if (i + 1 >= argv.size())
            throw usage_error(where + "option '--" + name + "' needs a value (" +
                              spec->value_name + ")");
          value = argv[++i];
        }
        out.values_[name] = value;
        out.lists_[name].push_back(value);
      }
      continue;
    }
    // Short options: "-j", "-qname", "-q name", or grouped flags "-jh".
    for (size_t k = 1; k < word.size(); ++k) {
      const OptSpec *spec = find_short(specs, word[k]);
      if (spec == nullptr)
        throw usage_error(where + "unknown option '-" + std::string(1, word[k]) + "'");
      if (spec->value_name == nullptr) {
        out.values_[spec->name] = "";
        continue;
      }
      std::string value = word.substr(k + 1);
      if (value.empty()) {
        if (i + 1 >= argv.size())
          throw usage_error(where + "option '-" + std::string(1, word[k]) + "' needs a value (" +
                            spec->value_name + ")");
        value = argv[++i];
      }
      out.values_[spec->name] = value;
      out.lists_[spec->name].push_back(value);
      break;
    }
  }
  return out;
}

uint64_t parse_uint(const std::string &text, uint64_t min, uint64_t max, const std::string &what) {
  const std::string range = " must be an integer " + std::to_string(min) + ".." +
                            std::to_string(max) + " (got '" + text + "')";
  if (text.empty() || text.size() > 20) throw usage_error(what + range);
  for (char ch : text)
    if (ch < '0' || ch > '9') throw usage_error(what + range);
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < min || v > max) throw usage_error(what + range);
  return v;
}

int64_t parse_seconds_ms(const std::string &text, int64_t min_ms, int64_t max_ms,
                         const std::string &what) {
  auto fmt = [](int64_t ms) {
    std::string s = std::to_string(ms / 1000);
    if (ms % 1000 != 0) {
      std::string frac = std::to_string(1000 + ms % 1000).substr(1);
      while (!frac.empty() && frac.back() == '0') frac.pop_back();
      s += "." + frac;
    }
    return s;
  };
  const std::string range = " must be seconds in " + fmt(min_ms) + ".." + fmt(max_ms) +
                            " (got '" + text + "')";
  bool ok = !text.empty() && text[0] != '-' && text[0] != '+' && looks_numeric(text);
  size_t dots = 0;
  for (char ch : text) dots += ch == '.' ? 1 : 0;
  if (!ok || dots > 1 || text.front() == '.' || text.back() == '.') throw usage_error(what + range);
  errno = 0;
  double seconds = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE || !std::isfinite(seconds) || seconds * 1000.0 > 9.0e15)
    throw usage_error(what + range);
  auto ms = static_cast<int64_t>(std::llround(seconds * 1000.0));
  if (ms < min_ms || ms > max_ms) throw usage_error(what + range);
  return ms;
}

namespace {

// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

int64_t parse_rfc3339_ms(const std::string &text, const std::string &what) {
  auto bad = [&]() -> CliError {
    return usage_error(what + " must be an RFC 3339 time such as 2027-03-01T09:00:00Z or "
                              "2027-03-01T10:00:00+01:00 (got '" + text + "')");
  };
  size_t i = 0;
  auto digits = [&](size_t n) {
    if (i + n > text.size()) throw bad();
    int v = 0;
    for (size_t k = 0; k < n; ++k, ++i) {
      if (!std::isdigit(static_cast<unsigned char>(text[i]))) throw bad();
      v = v * 10 + (text[i] - '0');
    }
    return v;
  };
  auto expect = [&](const char *set) {
    if (i >= text.size() || !std::strchr(set, text[i])) throw bad();
    ++i;
  };
  int y = digits(4);
  expect("-");
  int mo = digits(2);
  expect("-");
  int d = digits(2);
  expect("Tt ");
  int h = digits(2);
  expect(":");
  int mi = digits(2);
  expect(":");
  int se = digits(2);
  int64_t frac = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    size_t n = 0;
    int64_t scale = 100;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      frac += (text[i] - '0') * scale;
      scale /= 10;
      ++i;
      ++n;
    }
    if (n == 0) throw bad();
  }
  int64_t off = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int sign = text[i] == '-' ? -1 : 1;
    ++i;
    int oh = digits(2);
    expect(":");
    int om = digits(2);
    if (oh > 23 || om > 59) throw bad();
    off = sign * (oh * 3600 + om * 60);
  } else {
    throw bad();  // a time without an offset is ambiguous
  }
  static const int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (i != text.size() || mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] || h > 23 || mi > 59 || se > 60)
    throw bad();
  if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))) throw bad();
  int64_t secs = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
                 mi * 60 + std::min(se, 59) - off;
  return secs * 1000 + frac;
}

std::string format_rfc3339(int64_t ms) {
  int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  int64_t rem = ms - secs * 1000;
  int64_t z = (secs >= 0 ? secs : secs - 86399) / 86400;
  int64_t sod = secs - z * 86400;
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", static_cast<long long>(y),
                static_cast<long long>(m), static_cast<long long>(d), static_cast<long long>(sod / 3600),
                static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60), static_cast<long long>(rem));
  return buf;
}

}  // namespace emqcli
