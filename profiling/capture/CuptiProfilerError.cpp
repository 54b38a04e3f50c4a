#include "profiling/capture/CuptiProfilerError.h"

#include <cupti.h>

namespace fuselab::cupti {

std::string profilerError(const char* call, CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
  std::string out = std::string(call) + " failed (" + text + ")";
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return out + ": this user may not read GPU performance counters (run as root, or load the driver with "
                   "NVreg_RestrictProfilingToAdminUsers=0)";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
      return out + ": this GPU or driver does not support CUPTI's range profiler";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_MAX_LIMIT_REACHED:
      return out + ": another profiler is using the GPU's counters";
    default:
      return out;
  }
}

}  // namespace fuselab::cupti
