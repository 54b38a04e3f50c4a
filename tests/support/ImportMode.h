// Import options for tests that compare the importer's ways of running:
// on two threads or one, in windows of `window` bytes.
#pragma once

#include <cstddef>

#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab::test {

inline ChromeImportOptions importMode(bool parallel, size_t window, ImportProgress* progress = nullptr) {
  ChromeImportOptions o;
  o.parallel = parallel;
  o.window_bytes = window;
  o.progress = progress;
  return o;
}

}  // namespace fuselab::test
