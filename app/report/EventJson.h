// One event as the JSON reports name it: name, category, track, index, start
// (relative to `origin`) and duration.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "profiling/trace/Trace.h"

namespace fuselab {

nlohmann::ordered_json eventJson(const Trace& trace, EventRef r, int64_t origin);

}  // namespace fuselab
