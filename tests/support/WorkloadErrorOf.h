// The message makeWorkload refuses a workload's parameters with, "" when it
// builds the workload.
#pragma once

#include <string>

#include "kernels/WorkloadRegistry.h"

namespace fuselab::test {

inline std::string workloadErrorOf(const WorkloadParams& p) {
  try {
    makeWorkload(p);
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

}  // namespace fuselab::test
