#include "cron.hpp"

#include <cctype>
#include <cstring>
#include <vector>

#include "error.hpp"
#include "types.hpp"

namespace echomq {
namespace {

struct FieldSpec {
  const char* name;
  int lo, hi;
  const char* const* names;  // value names from lo (months, days), or null
};

const char* const kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                               "JUL", "AUG", "SEP", "OCT", "NOV", "DEC", nullptr};
const char* const kDays[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", nullptr};

// Day-of-week accepts 7 for Sunday (folded to 0 below).
const FieldSpec kFields[] = {{"second", 0, 59, nullptr},       {"minute", 0, 59, nullptr},
                             {"hour", 0, 23, nullptr},         {"day-of-month", 1, 31, nullptr},
                             {"month", 1, 12, kMonths},        {"day-of-week", 0, 7, kDays}};

[[noreturn]] void bad(const FieldSpec& f, const std::string& text, const std::string& why) {
  invalid("cron: " + std::string(f.name) + " field '" + text + "': " + why);
}

int value(const FieldSpec& f, const std::string& field, const std::string& s) {
  if (s.empty()) bad(f, field, "a value is missing");
  if (f.names && std::isalpha(static_cast<unsigned char>(s[0]))) {
    std::string up;
    for (char c : s) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (int i = 0; f.names[i]; ++i)
      if (up == f.names[i]) return f.lo + i;
    bad(f, field, "unknown name '" + s + "'");
  }
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) bad(f, field, "'" + s + "' is not a number");
  if (s.size() > 4) bad(f, field, s + " is out of range " + std::to_string(f.lo) + "-" + std::to_string(f.hi));
  int v = std::stoi(s);
  if (v < f.lo || v > f.hi)
    bad(f, field, s + " is out of range " + std::to_string(f.lo) + "-" + std::to_string(f.hi));
  return v;
}

// Parses one field into set[lo..hi]; returns whether it was written from '*'.
bool parseField(const FieldSpec& f, const std::string& field, std::vector<bool>& set) {
  set.assign(static_cast<size_t>(f.hi + 1), false);
  bool star = !field.empty() && field[0] == '*';
  size_t pos = 0;
  while (true) {
    size_t comma = field.find(',', pos);
    std::string item = field.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.empty()) bad(f, field, "an empty list item");
    int lo, hi, step = 1;
    std::string range = item;
    size_t slash = item.find('/');
    if (slash != std::string::npos) {
      range = item.substr(0, slash);
      std::string st = item.substr(slash + 1);
      if (st.empty() || st.size() > 4 || st.find_first_not_of("0123456789") != std::string::npos)
        bad(f, field, "step '" + st + "' is not a number");
      step = std::stoi(st);
      if (step < 1) bad(f, field, "a step must be at least 1");
    }
    if (range == "*") {
      lo = f.lo;
      hi = f.hi == 7 ? 6 : f.hi;
    } else {
      size_t dash = range.find('-');
      if (dash == std::string::npos) {
        lo = value(f, field, range);
        // "a/n" means from a to the end in steps of n.
        hi = slash != std::string::npos ? (f.hi == 7 ? 6 : f.hi) : lo;
      } else {
        lo = value(f, field, range.substr(0, dash));
        hi = value(f, field, range.substr(dash + 1));
        if (hi < lo) bad(f, field, "range " + range + " runs backwards");
      }
    }
    for (int v = lo; v <= hi; v += step) set[static_cast<size_t>(v)] = true;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return star;
}

}  // namespace

std::string canonicalCron(const std::string& input) {
  if (input.size() > kScheduleCronMax)
    invalid("cron: the expression is longer than " + std::to_string(kScheduleCronMax) + " bytes");
  std::string expr = input;
  static const struct { const char* macro; const char* expr; } kMacros[] = {
      {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
      {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
      {"@hourly", "0 * * * *"}};
  if (!expr.empty() && expr[0] == '@') {
    bool found = false;
    for (const auto& m : kMacros)
      if (expr == m.macro) {
        expr = m.expr;
        found = true;
      }
    if (!found) invalid("cron: unknown macro '" + input + "' (@yearly, @monthly, @weekly, @daily, @hourly)");
  }
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < expr.size()) {
    while (i < expr.size() && (expr[i] == ' ' || expr[i] == '\t')) ++i;
    if (i >= expr.size()) break;
    size_t j = i;
    while (j < expr.size() && expr[j] != ' ' && expr[j] != '\t') ++j;
    parts.push_back(expr.substr(i, j - i));
    i = j;
  }
  if (parts.size() == 5) parts.insert(parts.begin(), "0");
  if (parts.size() != 6)
    invalid("cron: '" + input + "' has " + std::to_string(parts.size()) +
            " fields; 5 (minute hour day-of-month month day-of-week) or 6 (second first) expected");
  std::string out;
  for (size_t f = 0; f < 6; ++f) {
    std::vector<bool> set;
    bool star = parseField(kFields[f], parts[f], set);
    if (f == 5 && set[7]) {  // Sunday as 7
      set[0] = true;
      set[7] = false;
    }
    int hi = kFields[f].hi == 7 ? 6 : kFields[f].hi;
    bool all = true;
    std::string list;
    for (int v = kFields[f].lo; v <= hi; ++v) {
      if (!set[static_cast<size_t>(v)]) {
        all = false;
        continue;
      }
      if (!list.empty()) list += ',';
      list += std::to_string(v);
    }
    if (!out.empty()) out += ' ';
    if (all && star) out += '*';
    else out += (star ? "*" : "") + list;
  }
  return out;
}

}  // namespace echomq
