// Starts the worker processes of a distributed job and watches them: one
// process per rank, all in one new process group, each with its own
// environment and a log file taking its stdout and stderr. Plain POSIX (no
// LibTorch): the workers do the work, this only starts, waits and stops.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace fuselab {

struct WorkerSpec {
  int rank = 0;
  std::filesystem::path executable;
  std::vector<std::string> args;  // argv[1..]
  std::vector<std::pair<std::string, std::string>> env;  // set on top of this process's environment
  std::filesystem::path log;      // stdout and stderr
};

struct WorkerFailure {
  int rank = 0;
  std::string what;  // "exited with code 2", "was killed by signal 6 (Aborted)", "did not finish within 30 s"
  std::string log_tail;  // the last lines of its log
};

struct LaunchOutcome {
  std::vector<WorkerFailure> failures;  // empty: every worker exited with 0
  bool cancelled = false;
  bool ok() const { return failures.empty() && !cancelled; }
  // One paragraph per failed rank: what happened and its log's tail.
  std::string report() const;
};

// Runs the workers to the end. The first that fails (a non-zero exit, a
// signal), a timeout or `cancel` stops the others: SIGTERM to the group,
// SIGKILL after a grace period, every child reaped before returning, so
// nothing is left running. Throws std::runtime_error when a worker cannot be
// started (the rest are stopped first).
LaunchOutcome runWorkers(const std::vector<WorkerSpec>& workers, std::chrono::milliseconds timeout,
                         const std::atomic<bool>* cancel = nullptr);

// For a worker: asks the kernel to send it SIGTERM when the process that
// started it ends (a launcher that was killed leaves no rank behind). False
// when that process is already gone.
bool stopWithLauncher();

// A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's
// pick for port 0). Throws std::runtime_error when no socket can be bound.
int freeLoopbackPort();

// The last `max_lines` lines of a text file ("" when unreadable).
std::string fileTail(const std::filesystem::path& file, size_t max_lines = 12);

}  // namespace fuselab
