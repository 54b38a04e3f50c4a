#include "profiling/trace/WindowCut.h"

#include <cstring>

namespace fuselab::chrome_import {

namespace {

constexpr size_t npos = std::string_view::npos;

// The last `c` in text[from, to), or npos. memrchr: string_view::rfind reads
// a byte at a time, 40x slower over a window without newlines, and the
// windows read ahead are cut one after another.
size_t lastOf(std::string_view text, char c, size_t from, size_t to) {
  if (to <= from) return npos;
  const void* at = memrchr(text.data() + from, c, to - from);
  return at ? size_t(static_cast<const char*>(at) - text.data()) : npos;
}

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// `comma` lies between two objects: "}" before it and "{" after it, with
// only whitespace between.
bool betweenObjects(std::string_view text, size_t comma) {
  size_t before = comma, after = comma + 1;
  while (before > 0 && isSpace(text[before - 1])) --before;
  while (after < text.size() && isSpace(text[after])) ++after;
  return before > 0 && text[before - 1] == '}' && after < text.size() && text[after] == '{';
}

// Trusting line ends: the last "}", comma, "{" with a newline among them.
size_t elementBoundaryByLines(std::string_view text, size_t min_len) {
  for (size_t p = text.size(); p > min_len + 1;) {
    const size_t newline = lastOf(text, '\n', min_len + 1, p);
    if (newline == npos) return npos;
    p = newline;
    size_t comma = newline;
    while (comma > 0 && isSpace(text[comma - 1])) --comma;
    if (comma == 0 || text[comma - 1] != ',') continue;
    if (betweenObjects(text, comma - 1)) return comma - 1;
  }
  return npos;
}

// Scanning strings: the last comma at depth 0 (text's start is between two
// elements of an array) that lies between two objects. `scan` goes on from
// the window before; when that finds none, a scan from the start looks past
// commas that are not between objects (the text ends before the next object
// starts), a few times.
size_t elementBoundaryByScan(std::string_view text, size_t min_len, ScanState* scan) {
  if (scan) {
    const CommaAtDepth c = shallowestComma(text, min_len + 1, scan);
    if (c.offset != npos && c.depth == 0 && betweenObjects(text, c.offset)) return c.offset;
  }
  for (int tries = 0; tries < 4; ++tries) {
    const CommaAtDepth c = shallowestComma(text, min_len + 1);
    if (c.offset == npos || c.depth != 0) return npos;
    if (betweenObjects(text, c.offset)) return c.offset;
    text = text.substr(0, c.offset);
  }
  return npos;
}

// Guessing on one line: the last comma between two objects, strings not
// scanned. Such a comma may lie inside a string or deeper than the events'
// array; the window's parse then fails its check (ChromeImportSpeculation.cpp).
size_t elementBoundaryByGuess(std::string_view text, size_t min_len) {
  for (size_t p = text.size(); p > min_len + 1;) {
    const size_t comma = lastOf(text, ',', min_len + 1, p);
    if (comma == npos) return npos;
    if (betweenObjects(text, comma)) return comma;
    p = comma;
  }
  return npos;
}

}  // namespace

size_t windowCut(std::string_view text, size_t min_len, int attempt) {
  const size_t newline = lastOf(text, '\n', 0, text.size());
  if (newline == npos || newline <= min_len) {
    // No line end to trust: first a comma outside strings.
    if (attempt == 0) {
      const size_t comma = shallowestComma(text, min_len + 1).offset;
      if (comma != npos) return comma;
    } else {
      --attempt;
    }
  }
  for (char c : {'\n', ','}) {
    for (size_t p = text.size(); p > min_len + 1;) {
      --p;
      if (text[p] == c && attempt-- == 0) return p;
    }
  }
  return npos;
}

size_t elementBoundary(std::string_view text, size_t min_len, ScanState* scan, OneLine one_line) {
  size_t cut = elementBoundaryByLines(text, min_len);
  if (cut == npos && one_line == OneLine::Guess) cut = elementBoundaryByGuess(text, min_len);
  if (cut != npos) {
    if (scan) *scan = {};  // not scanned: the next window scans from its start
    return cut;
  }
  return elementBoundaryByScan(text, min_len, scan);
}

}  // namespace fuselab::chrome_import
