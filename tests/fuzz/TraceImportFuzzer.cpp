// libFuzzer target for the trace importer (scripts/fuzz). Any input must pass
// tests/profiling/TraceImportOracle.h; a failed check aborts, so libFuzzer keeps
// the input as a finding, as it does for crashes and sanitizer reports.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/profiling/analysis/TraceImportOracle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (auto finding = fuselab::test::checkTraceImport(std::string(reinterpret_cast<const char*>(data), size))) {
    std::fprintf(stderr, "fuzz finding: %s\n", finding->c_str());
    std::abort();
  }
  return 0;
}
