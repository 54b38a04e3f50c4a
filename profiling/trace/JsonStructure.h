// JSON text's structure outside its strings, read 64 bytes at a time: which
// quotes are escaped (runs of backslashes), which bytes lie inside strings
// (the prefix XOR of the unescaped quotes) and the nesting depth at each
// comma. The importer cuts its parse windows with it where the text has no
// newlines to trust (WindowCut.h): a comma found here is never inside a
// string, whatever the layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fuselab::chrome_import {

struct CommaAtDepth {
  size_t offset = std::string_view::npos;  // npos: none
  int64_t depth = 0;                       // brackets and braces open at it, counted from the text's start
};

// `text` starts outside any string at depth 0. The last comma outside
// strings in text[from ..] at the least depth of all such commas there
// (depth may be negative: the text closed brackets it did not open).
CommaAtDepth shallowestComma(std::string_view text, size_t from);

}  // namespace fuselab::chrome_import
