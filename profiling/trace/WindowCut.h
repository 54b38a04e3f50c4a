// Where the Chrome trace importer ends a parse window that stops before the
// end of the text (ChromeImportReading.cpp).
#pragma once

#include <cstddef>
#include <string_view>

#include "profiling/trace/JsonStructure.h"

namespace fuselab::chrome_import {

// `text` is the window's bytes up to its size limit; it starts outside any
// string. The candidates are the newlines in text[min_len + 1 ..] from the
// end back (never inside a string in valid JSON), then the commas the same
// way (a comma may be inside a string, e.g. a kernel name's template
// arguments, and the cut then fails to parse: `attempt` counts the
// candidates that failed). Text without a newline there (JSON on one line)
// first tries the last comma outside strings at the least depth
// (JsonStructure.h). Returns the offset of the chosen one (the window keeps
// text[0, offset)), or npos.
size_t windowCut(std::string_view text, size_t min_len, int attempt);

// For windows read ahead (ChromeImportSpeculation.cpp): the offset of a comma
// between two objects of an array, seen from the text alone: "}", the comma
// and "{" with whitespace between them that holds a newline (the last such
// newline in text[min_len + 1 ..]). A newline is never inside a string in
// valid JSON, so the three characters are structure, not string content.
// Text without one (JSON on one line) is scanned for strings instead
// (JsonStructure.h): `text` starts between two elements of the array, and
// the comma must be at its depth. Whether the array is traceEvents shows
// only when the windows are parsed. npos if there is none.
// `scan` (optional): where the scan of the window before this one stopped,
// as an offset in `text` (windows start where the one before was cut, so
// they overlap): the scan goes on from there and leaves its own end.
// OneLine::Guess: on one line, first the last "}", comma, "{" without
// scanning strings (the scan runs at about 3 GB/s on the thread that claims
// the window, a fifth of the window's parse): right between two events
// unless a string or the args hold that pattern, which the window's parse
// check then catches.
enum class OneLine { Scan, Guess };
size_t elementBoundary(std::string_view text, size_t min_len, ScanState* scan = nullptr,
                       OneLine one_line = OneLine::Scan);

}  // namespace fuselab::chrome_import
