// A field of /proc/self/status in kB (VmRSS:, VmHWM:), -1 if missing: peak
// memory of one import measured in a fresh child process.
#pragma once

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace fuselab::bench {

inline long statusKb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::strlen(field));
  return -1;
}

}  // namespace fuselab::bench
