// Hardware counters measured for one kernel (capture --counters), kept as
// kernel event args so they travel with the trace through Kineto JSON export
// and import. The model's figures (analysis/work/KernelWork.h) come from shapes;
// these come from CUPTI's range profiler in a separate replayed forward.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "profiling/trace/Trace.h"

namespace fuselab {

// The args keys, as they appear in exported traces; each ends in the suffix.
inline constexpr std::string_view kMeasuredKeySuffix = "(measured)";
inline constexpr std::string_view kArgDramBytesMeasured = "dram bytes (measured)";
inline constexpr std::string_view kArgTensorActiveMeasured = "tensor active % (measured)";
static_assert(kArgDramBytesMeasured.ends_with(kMeasuredKeySuffix) &&
              kArgTensorActiveMeasured.ends_with(kMeasuredKeySuffix));

struct MeasuredCounters {
  std::optional<double> dram_bytes;         // DRAM bytes read + written
  std::optional<double> tensor_active_pct;  // tensor pipe busy, % of peak sustained

  bool empty() const { return !dram_bytes && !tensor_active_pct; }
};

// The counters in an event's args (empty when it has none).
MeasuredCounters measuredCountersOf(const Trace& trace, EventRef event);
MeasuredCounters measuredCountersOf(std::string_view args_json);

// `args_json` (an object, or empty for none) with the counters added as
// top-level fields. Args that are not an object are returned unchanged.
std::string withMeasuredCounters(std::string_view args_json, const MeasuredCounters& counters);

}  // namespace fuselab
