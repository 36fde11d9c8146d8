// Output helpers: a small JSON writer, aligned text tables, durations, and
// safe display of binary payloads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace emqcli {

/// Streaming JSON writer that inserts commas itself. Keys and strings are
/// escaped; callers pass only valid UTF-8 as strings (see utf8_valid).
class Json {
 public:
  Json &begin_object();
  Json &end_object();
  Json &begin_array();
  Json &end_array();
  Json &key(std::string_view k);
  Json &str(std::string_view v);
  Json &num(uint64_t v);
  Json &num(int64_t v);
  Json &num(double v);
  Json &boolean(bool v);
  Json &null();
  /// The text written so far.
  const std::string &text() const { return out_; }

 private:
  void before_value();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

/// JSON string literal (with quotes) for valid UTF-8 text.
std::string json_quote(std::string_view s);

/// True if `s` is well-formed UTF-8.
bool utf8_valid(std::string_view s);

/// Standard base64 (with padding).
std::string base64(std::string_view bytes);

/// Payload bytes as one display line: printable UTF-8 as is, other bytes as
/// \xNN, newlines and tabs as \n and \t; cut to `max_chars` with "…".
std::string display_bytes(std::string_view bytes, size_t max_chars);

/// Terminal columns taken by UTF-8 text: 2 per wide character (CJK, emoji),
/// 0 per combining mark, 1 otherwise (char_width.hpp).
size_t display_width(std::string_view s);

/// Cut UTF-8 text to at most `width` columns, ending with "…" when cut.
std::string fit_width(std::string_view s, size_t width);

/// A duration in milliseconds as "850ms", "12.3s", "4m05s", "3h02m", "2d04h".
std::string human_duration(int64_t ms);

/// Integer with thousands separators ("1,234,567").
std::string grouped(uint64_t v);

/// A text table: a header row and rows of cells, columns padded to their
/// widest cell. Columns listed in `right` are right-aligned (numbers).
class Table {
 public:
  explicit Table(std::vector<std::string> header, std::vector<bool> right);
  void add(std::vector<std::string> row);
  /// Rendered rows, one string per line, without trailing newlines.
  std::vector<std::string> lines() const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace emqcli
