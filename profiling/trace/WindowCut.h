// Where the Chrome trace importer ends a parse window that stops before the
// end of the text (ChromeImportReading.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace fuselab::chrome_import {

// `text` is the window's bytes up to its size limit. The candidates are the
// newlines in text[min_len + 1 ..] from the end back (never inside a string
// in valid JSON), then the commas the same way (a comma may be inside a
// string, e.g. a kernel name's template arguments, and the cut then fails
// to parse: `attempt` counts the candidates that failed). Returns the
// offset of the chosen one (the window keeps text[0, offset)), or npos.
size_t windowCut(std::string_view text, size_t min_len, int attempt);

}  // namespace fuselab::chrome_import
