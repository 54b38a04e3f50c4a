#include "profiling/trace/WindowCut.h"

namespace fuselab::chrome_import {

size_t windowCut(std::string_view text, size_t min_len, int attempt) {
  for (char c : {'\n', ','}) {
    for (size_t p = text.size(); p > min_len + 1;) {
      --p;
      if (text[p] == c && attempt-- == 0) return p;
    }
  }
  return std::string_view::npos;
}

namespace {
bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
}  // namespace

size_t elementBoundary(std::string_view text, size_t min_len) {
  for (size_t p = text.size(); p > min_len + 1;) {
    size_t newline = text.rfind('\n', p - 1);
    if (newline == std::string_view::npos || newline <= min_len) return std::string_view::npos;
    p = newline;
    size_t before = newline;
    while (before > 0 && isSpace(text[before - 1])) --before;
    if (before == 0 || text[before - 1] != ',') continue;
    const size_t comma = before - 1;
    before = comma;
    while (before > 0 && isSpace(text[before - 1])) --before;
    if (before == 0 || text[before - 1] != '}') continue;
    size_t after = newline + 1;
    while (after < text.size() && isSpace(text[after])) ++after;
    if (after < text.size() && text[after] == '{') return comma;
  }
  return std::string_view::npos;
}

}  // namespace fuselab::chrome_import
