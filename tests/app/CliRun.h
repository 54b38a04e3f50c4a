// Runs fuselab's command line in this process (runCli), with what it prints
// to std::cout and std::cerr captured.
#pragma once

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/Cli.h"

namespace fuselab::test {

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

inline CliRun runFuselab(std::vector<std::string> args) {
  args.insert(args.begin(), "fuselab");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  CliRun r;
  r.exit_code = runCli(int(argv.size()), argv.data());
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace fuselab::test
