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

// Where a scan of a text stopped, to go on from there in a longer text
// with the same start (a window that overlaps the one before it).
struct ScanState {
  size_t offset = 0;             // the scan read text[0, offset)
  uint64_t in_string = 0;        // all ones: text[offset] is inside a string
  bool escaped = false;          // text[offset] follows a backslash
  int64_t depth = 0;             // brackets and braces open there
};

// `text` starts outside any string at depth 0. The last comma outside
// strings in text[from ..] at the least depth of all such commas there
// (depth may be negative: the text closed brackets it did not open).
// `resume` (optional): the scan starts at resume->offset in that state, so
// only commas from there count; on return it holds the state at the start
// of the text's last 64-byte block (its end when the text is whole blocks).
// Reads 32 bytes at a time where the CPU has AVX2 (1.5x the bytes per second).
CommaAtDepth shallowestComma(std::string_view text, size_t from, ScanState* resume = nullptr);
// The same with the baseline instruction set only: for tests to compare.
CommaAtDepth shallowestCommaBaseline(std::string_view text, size_t from, ScanState* resume = nullptr);

}  // namespace fuselab::chrome_import
