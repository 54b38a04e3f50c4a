// A benchmark measured in a new process of its own program: the program runs
// itself again as `PROGRAM MODE ARG` (its main answers such calls first), and
// the child writes one trivially copyable result to the pipe on fd 3. So a
// measured step's peak memory is its own, with no heap of the benchmark's to
// reuse and no copy-on-write faults, as a forked child would have.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace fuselab::bench {

// In the child: sends `result` to the parent.
template <typename Result>
int sendToParent(const Result& result) {
  static_assert(std::is_trivially_copyable_v<Result>);
  return write(3, &result, sizeof(result)) == sizeof(result) ? 0 : 1;
}

// In the parent: runs `PROGRAM mode arg` and returns what it sent. Throws
// when it sent nothing.
template <typename Result>
Result runSelfInNewProcess(const char* mode, const std::string& arg) {
  static_assert(std::is_trivially_copyable_v<Result>);
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (fds[1] != 3) {
      dup2(fds[1], 3);
      close(fds[1]);
    }
    execl("/proc/self/exe", "fuselab-bench-child", mode, arg.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  Result r{};
  const bool got = read(fds[0], &r, sizeof(r)) == sizeof(r);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!got) throw std::runtime_error(std::string(mode) + " " + arg + ": the child process sent no result");
  return r;
}

}  // namespace fuselab::bench
