// Runs a Python script of the tests with the project's Python
// (fuselab::build_paths::pythonExe(), tests/support/BuildPaths.h): its stdout (stderr too when asked) and exit code.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/support/BuildPaths.h"
#include "tests/support/TestPaths.h"

namespace fuselab::test {

struct PythonResult {
  int exit_code = -1;
  std::string output;
};

inline std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `script` relative to the source tree ("tests/hta/hta_crosscheck.py").
inline PythonResult runPython(const std::string& script, const std::vector<std::string>& args,
                              bool with_stderr = false) {
  std::string cmd = shellQuote(pythonExe()) + " " + shellQuote(std::string(fuselab::build_paths::sourceDir()) + "/" + script);
  for (const std::string& a : args) cmd += " " + shellQuote(a);
  cmd += with_stderr ? " 2>&1" : " 2>/dev/null";
  PythonResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace fuselab::test
