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

}  // namespace fuselab::chrome_import
