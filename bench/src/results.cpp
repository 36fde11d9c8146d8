// results.cpp — see results.hpp.
#include "results.hpp"

#include <algorithm>
#include <cstdio>

namespace bench {

const Figure *Results::find(const std::string &section, const std::string &name,
                            int clients) const {
  for (const auto &f : figures)
    if (f.section == section && f.name == name && f.clients == clients) return &f;
  return nullptr;
}

namespace {

/// 1234567.8 -> "1,234,568"; small values keep two decimals.
std::string pretty(double v) {
  if (std::isnan(v)) return "-";
  if (std::fabs(v) < 100) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return b;
  }
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", v);
  std::string s = b, out;
  int digits = 0;
  for (int i = int(s.size()) - 1; i >= 0; --i) {
    out.insert(out.begin(), s[i]);
    if (s[i] >= '0' && s[i] <= '9' && ++digits % 3 == 0 && i > 0 && s[i - 1] != '-')
      out.insert(out.begin(), ',');
  }
  return out;
}

}  // namespace

void print_table(const Results &r) {
  std::printf("\n%-12s %-44s %7s %13s %-11s %s\n", "section", "figure", "clients", "median",
              "unit", "ratio");
  // Grouped by section, in the order the sections first appear.
  std::vector<std::string> order;
  for (const auto &f : r.figures)
    if (std::find(order.begin(), order.end(), f.section) == order.end())
      order.push_back(f.section);
  for (size_t si = 0; si < order.size(); ++si) {
    if (si > 0) std::printf("\n");
    for (const auto &f : r.figures) {
      if (f.section != order[si]) continue;
      std::string clients = f.clients ? std::to_string(f.clients) : "";
      std::string ratio;
      if (!std::isnan(f.ratio)) {
        char b[64];
        std::snprintf(b, sizeof b, "%.2fx %s", f.ratio, f.ratio_to.c_str());
        ratio = b;
      }
      std::printf("%-12s %-44s %7s %13s %-11s %s\n", f.section.c_str(), f.name.c_str(),
                  clients.c_str(), pretty(f.value).c_str(), f.unit.c_str(), ratio.c_str());
    }
  }
  if (!r.targets.empty()) {
    std::printf("\n%-58s %10s %10s  %s\n", "target", "measured", "goal", "");
    for (const auto &t : r.targets)
      std::printf("%-58s %10.2f %8s%.2f  %s\n", t.name.c_str(), t.measured,
                  t.at_most ? "<= " : ">= ", t.goal, t.met() ? "met" : "MISSED");
  }
  for (const auto &n : r.notes) std::printf("note: %s\n", n.c_str());
}

std::string json_str(const std::string &s) {
  std::string o = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (ch < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", ch);
          o += b;
        } else {
          o += char(ch);
        }
    }
  }
  return o + "\"";
}

std::string json_num(double v) {
  if (std::isnan(v) || std::isinf(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

bool write_json(const Results &r, const std::string &path, const std::string &header_json) {
  std::FILE *f = path == "-" ? stdout : std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "{\n  %s,\n  \"figures\": [\n", header_json.c_str());
  for (size_t i = 0; i < r.figures.size(); ++i) {
    const Figure &x = r.figures[i];
    std::string runs;
    for (size_t k = 0; k < x.runs.size(); ++k) runs += (k ? ", " : "") + json_num(x.runs[k]);
    std::fprintf(f,
                 "    {\"section\": %s, \"name\": %s, \"clients\": %d, \"median\": %s, "
                 "\"unit\": %s, \"ratio\": %s, \"ratio_to\": %s, \"runs\": [%s]}%s\n",
                 json_str(x.section).c_str(), json_str(x.name).c_str(), x.clients,
                 json_num(x.value).c_str(), json_str(x.unit).c_str(), json_num(x.ratio).c_str(),
                 json_str(x.ratio_to).c_str(), runs.c_str(), i + 1 < r.figures.size() ? "," : "");
  }
  std::fprintf(f, "  ],\n  \"targets\": [\n");
  for (size_t i = 0; i < r.targets.size(); ++i) {
    const Target &t = r.targets[i];
    std::fprintf(f, "    {\"name\": %s, \"measured\": %s, \"goal\": %s, \"at_most\": %s, "
                 "\"met\": %s}%s\n",
                 json_str(t.name).c_str(), json_num(t.measured).c_str(), json_num(t.goal).c_str(),
                 t.at_most ? "true" : "false", t.met() ? "true" : "false",
                 i + 1 < r.targets.size() ? "," : "");
  }
  std::fprintf(f, "  ],\n  \"notes\": [");
  for (size_t i = 0; i < r.notes.size(); ++i)
    std::fprintf(f, "%s%s", i ? ", " : "", json_str(r.notes[i]).c_str());
  std::fprintf(f, "]\n}\n");
  return path == "-" ? std::fflush(f) == 0 : std::fclose(f) == 0;
}

}  // namespace bench
