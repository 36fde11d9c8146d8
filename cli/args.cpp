#include "args.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "errors.hpp"

namespace emqcli {

std::string Args::get(const std::string &name, const std::string &fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
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

}  // namespace emqcli
