// Runs the fuselab executable as a fresh child process and measures it: wall
// time to its exit and its peak resident memory. For the benchmarks that time
// whole commands (they link nothing of fuselab, so their own memory does not
// count in the child's peak up to the exec).
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/support/BuildPaths.h"

extern char** environ;

namespace fuselab::bench {

inline const std::string kFuselabExecutable = std::string(fuselab::build_paths::binaryDir()) + "/app/fuselab";

struct ProcessRun {
  double seconds = 0;
  double peak_rss_mb = 0;  // ru_maxrss of the child
  bool ok = false;         // exited with status 0
};

// `fuselab ARGS`, this process's environment plus `extra_env` ("NAME=value");
// stdout dropped, and stderr too unless `keep_stderr`.
inline ProcessRun runFuselab(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {},
                             bool keep_stderr = false) {
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) env_text.emplace_back(*e);
  env_text.insert(env_text.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> env, argv;
  for (auto& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  std::vector<std::string> argv_text = {kFuselabExecutable};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (!keep_stderr) posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  ProcessRun run;
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, kFuselabExecutable.c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return run;
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.peak_rss_mb = double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return run;
}

}  // namespace fuselab::bench
