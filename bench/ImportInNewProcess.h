// One import measured in a new process (SelfInNewProcess.h): the benchmark
// runs itself again with `--import-one FILE` (its main calls
// importOneIfAsked first).
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "bench/ProcStatus.h"
#include "bench/SelfInNewProcess.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab::bench {

struct ImportMeasured {
  double seconds = -1;    // the import's wall time; -1: it failed
  double peak_bytes = 0;  // growth of the process's peak RSS
  size_t events = 0;
  ImportWindowStats windows;  // how the parse windows went (read ahead, failed cuts)
};

inline constexpr const char* kImportOne = "--import-one";
inline constexpr const char* kImportOneSerial = "--import-one-serial";  // on one thread

// For main: -1 unless run as `PROGRAM --import-one FILE`, then the exit code
// of that one import, its figures written to the pipe on fd 3.
inline int importOneIfAsked(int argc, char** argv) {
  if (argc != 3 || (std::string(argv[1]) != kImportOne && std::string(argv[1]) != kImportOneSerial)) return -1;
  ImportMeasured m;
  const long before = statusKb("VmRSS:");
  try {
    const auto t0 = std::chrono::steady_clock::now();
    ChromeImportOptions options;
    options.stats = &m.windows;
    options.parallel = std::string(argv[1]) == kImportOne;
    const Trace t = importChromeTrace(argv[2], options);
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.events = t.eventCount();
    m.peak_bytes = double(statusKb("VmHWM:") - before) * 1024;
  } catch (...) {
    m.seconds = -1;
  }
  return sendToParent(m);
}

inline ImportMeasured importInNewProcess(const std::string& path, bool parallel = true) {
  const ImportMeasured m = runSelfInNewProcess<ImportMeasured>(parallel ? kImportOne : kImportOneSerial, path);
  if (m.seconds < 0) throw std::runtime_error("importing " + path + " failed");
  return m;
}

}  // namespace fuselab::bench
