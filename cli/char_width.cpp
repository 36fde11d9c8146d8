#include "char_width.hpp"

#include <algorithm>
#include <iterator>

namespace emqcli {
namespace {

struct CharRange {
  uint32_t first, last;
};

// kWide and kZero, generated from the Unicode tables by cli/gen_char_width.py.
#include "char_width_table.inc"

template <size_t N>
bool in(const CharRange (&table)[N], uint32_t cp) {
  auto it = std::upper_bound(std::begin(table), std::end(table), cp,
                             [](uint32_t c, const CharRange &r) { return c < r.first; });
  return it != std::begin(table) && cp <= std::prev(it)->last;
}

}  // namespace

int char_width(uint32_t cp) {
  if (cp < 0x300) return 1;  // ASCII and Latin-1: the common case, no search
  if (in(kZero, cp)) return 0;
  if (in(kWide, cp)) return 2;
  return 1;
}

}  // namespace emqcli
