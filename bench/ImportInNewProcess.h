// One import measured in a new process: the benchmark runs itself again
// with `--import-one FILE` (its main calls importOneIfAsked first), so the
// import's peak memory is its own, with no heap of the benchmark's (the
// files it wrote) to reuse and no copy-on-write faults on it, as a forked
// child would have.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "bench/ProcStatus.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab::bench {

struct ImportMeasured {
  double seconds = -1;    // the import's wall time; -1: it failed
  double peak_bytes = 0;  // growth of the process's peak RSS
  size_t events = 0;
  ImportWindowStats windows;  // how the parse windows went (read ahead, failed cuts)
};

inline constexpr const char* kImportOne = "--import-one";

// For main: -1 unless run as `PROGRAM --import-one FILE`, then the exit code
// of that one import, its figures written to the pipe on fd 3.
inline int importOneIfAsked(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != kImportOne) return -1;
  ImportMeasured m;
  const long before = statusKb("VmRSS:");
  try {
    const auto t0 = std::chrono::steady_clock::now();
    ChromeImportOptions options;
    options.stats = &m.windows;
    const Trace t = importChromeTrace(argv[2], options);
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.events = t.eventCount();
    m.peak_bytes = double(statusKb("VmHWM:") - before) * 1024;
  } catch (...) {
    m.seconds = -1;
  }
  return write(3, &m, sizeof(m)) == sizeof(m) ? 0 : 1;
}

inline ImportMeasured importInNewProcess(const std::string& path) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (fds[1] != 3) {
      dup2(fds[1], 3);
      close(fds[1]);
    }
    execl("/proc/self/exe", "fuselab-bench-import", kImportOne, path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  ImportMeasured m;
  if (read(fds[0], &m, sizeof(m)) != sizeof(m)) m.seconds = -1;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (m.seconds < 0) throw std::runtime_error("importing " + path + " failed");
  return m;
}

}  // namespace fuselab::bench
