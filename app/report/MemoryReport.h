// The memory part of `fuselab analyze` (traces with `[memory]` events): a
// text section and the `memory` JSON section. Both write nothing for a trace
// without memory events.
#pragma once

#include <cstdint>
#include <ostream>

#include <nlohmann/json.hpp>

#include "profiling/analysis/memory/MemorySummary.h"

namespace fuselab {

// devices[] (device, allocations, frees, allocated/freed bytes, peaks, the
// peak's op and stack, start and end allocated, out_of_memory[]),
// unattributed bytes and warnings. Times relative to `origin`.
nlohmann::ordered_json memoryJson(const Trace& trace, const MemorySummary& memory, int64_t origin);

void writeMemoryText(std::ostream& out, const Trace& trace, const MemorySummary& memory);

}  // namespace fuselab
