#include "format.hpp"

#include "char_width.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace emqcli {

void Json::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

Json &Json::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

Json &Json::end_object() {
  out_ += '}';
  first_.pop_back();
  return *this;
}

Json &Json::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

Json &Json::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

Json &Json::key(std::string_view k) {
  before_value();
  out_ += json_quote(k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

Json &Json::str(std::string_view v) {
  before_value();
  out_ += json_quote(v);
  return *this;
}

Json &Json::num(uint64_t v) {
  before_value();
  out_ += std::to_string(v);
  return *this;
}

Json &Json::num(int64_t v) {
  before_value();
  out_ += std::to_string(v);
  return *this;
}

Json &Json::num(double v) {
  before_value();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  out_ += buf;
  return *this;
}

Json &Json::boolean(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  return *this;
}

Json &Json::null() {
  before_value();
  out_ += "null";
  return *this;
}

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (ch < 0x20 || ch == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          out += buf;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  out += '"';
  return out;
}

namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 if it is malformed.
size_t utf8_seq_len(std::string_view s, size_t i) {
  auto b = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t cp;
  if (b < 0x80) return 1;
  if ((b & 0xe0) == 0xc0) { n = 2; cp = b & 0x1f; }
  else if ((b & 0xf0) == 0xe0) { n = 3; cp = b & 0x0f; }
  else if ((b & 0xf8) == 0xf0) { n = 4; cp = b & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  // Refuse overlong forms, surrogates and values past U+10FFFF.
  static const uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_cp[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

// The code point of the valid UTF-8 sequence of length n at s[i].
uint32_t utf8_code_point(std::string_view s, size_t i, size_t n) {
  static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  uint32_t cp = static_cast<unsigned char>(s[i]) & lead_mask[n];
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return cp;
}

// Bytes and columns of the character at s[i]; a malformed byte is one byte
// and one column (it is shown escaped or as a replacement mark).
std::pair<size_t, size_t> char_at(std::string_view s, size_t i) {
  size_t n = utf8_seq_len(s, i);
  if (n == 0) return {1, 1};
  return {n, static_cast<size_t>(char_width(utf8_code_point(s, i, n)))};
}

}  // namespace

bool utf8_valid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_seq_len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string base64(std::string_view bytes) {
  static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    out += tbl[v >> 18];
    out += tbl[(v >> 12) & 63];
    out += tbl[(v >> 6) & 63];
    out += tbl[v & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += tbl[v >> 18];
    out += tbl[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? tbl[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string display_bytes(std::string_view bytes, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < bytes.size();) {
    if (chars >= max_chars) {
      out += "…";
      break;
    }
    auto b = static_cast<unsigned char>(bytes[i]);
    size_t n = utf8_seq_len(bytes, i);
    if (b == '\n') {
      out += "\\n";
    } else if (b == '\t') {
      out += "\\t";
    } else if (b == '\\') {
      out += "\\\\";
    } else if (n == 0 || b < 0x20 || b == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", b);
      out += buf;
      n = 1;
    } else {
      out.append(bytes.substr(i, n));
    }
    i += n == 0 ? 1 : n;
    ++chars;
  }
  return out;
}

// Widths by terminal columns, not bytes or code points: a wide character
// (CJK, emoji) takes two, a combining mark none, or table rows shift.
size_t display_width(std::string_view s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size();) {
    auto [bytes, cols] = char_at(s, i);
    w += cols;
    i += bytes;
  }
  return w;
}

std::string fit_width(std::string_view s, size_t width) {
  if (display_width(s) <= width) return std::string(s);
  if (width == 0) return "";
  std::string out;
  size_t w = 0;
  for (size_t i = 0; i < s.size();) {
    auto [bytes, cols] = char_at(s, i);
    if (w + cols + 1 > width) break;  // keep a column for the "…"
    w += cols;
    out.append(s.substr(i, bytes));
    i += bytes;
  }
  return out + "…";
}

std::string human_duration(int64_t ms) {
  if (ms < 0) ms = 0;
  char buf[32];
  if (ms < 1000) {
    std::snprintf(buf, sizeof buf, "%lldms", static_cast<long long>(ms));
  } else if (ms < 60000) {
    std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(ms) / 1000.0);
  } else {
    long long s = ms / 1000;
    if (s < 3600) std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
    else if (s < 86400) std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, s % 3600 / 60);
    else std::snprintf(buf, sizeof buf, "%lldd%02lldh", s / 86400, s % 86400 / 3600);
  }
  return buf;
}

std::string grouped(uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

Table::Table(std::vector<std::string> header, std::vector<bool> right)
    : header_(std::move(header)), right_(std::move(right)) {
  right_.resize(header_.size(), false);
}

void Table::add(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

std::vector<std::string> Table::lines() const {
  std::vector<size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string> &row) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  };
  measure(header_);
  for (const auto &r : rows_) measure(r);
  auto render = [&](const std::vector<std::string> &row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string pad(width[c] - display_width(row[c]), ' ');
      bool last = c + 1 == row.size();
      if (c > 0) line += "  ";
      if (right_[c]) line += pad + row[c];
      else line += last ? row[c] : row[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
  };
  std::vector<std::string> out;
  out.push_back(render(header_));
  for (const auto &r : rows_) out.push_back(render(r));
  return out;
}

}  // namespace emqcli
