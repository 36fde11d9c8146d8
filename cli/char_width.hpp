// Terminal column width of one Unicode code point, for aligning tables.
#pragma once

#include <cstdint>

namespace emqcli {

/// Columns a terminal gives code point `cp`: 2 for East Asian wide and
/// fullwidth characters (CJK, and emoji drawn as pictures), 0 for combining
/// and enclosing marks and format characters (ZERO WIDTH JOINER, variation
/// selectors), 1 otherwise. Per code point, as wcwidth(3) does: a ZWJ emoji
/// sequence counts each of its pictures.
int char_width(uint32_t cp);

}  // namespace emqcli
