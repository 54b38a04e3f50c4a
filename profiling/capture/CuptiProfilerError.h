// Words for a failed CUPTI profiler call (range profiler, host API), with the
// way out for the common refusals: no permission to read GPU counters,
// another profiler holding them, an unsupported GPU.
#pragma once

#include <cupti_result.h>

#include <string>

namespace fuselab::cupti {

std::string profilerError(const char* call, CUptiResult r);

}  // namespace fuselab::cupti
