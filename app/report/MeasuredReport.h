// The measured-counters part of `fuselab analyze` (traces from
// `capture --counters`): a text section and the kernels[] JSON fields, both
// only where some kernel carries counters.
#pragma once

#include <cstddef>
#include <ostream>

#include <nlohmann/json.hpp>

#include "profiling/analysis/single/Analysis.h"

namespace fuselab {

// measured_calls, measured_bytes_per_call, model_bytes_per_call,
// tensor_active_pct (null where unknown).
nlohmann::ordered_json measuredFieldsJson(const KernelRow& row);

// One GPU op's measured counters into its JSON row (roofline.gpu_ops[]):
// measured_bytes, tensor_active_pct; nothing when it carries none.
void addMeasuredOpFields(nlohmann::ordered_json& row, const Trace& trace, EventRef op);

// Per kernel name: the model's bytes per call against the measured DRAM
// bytes, and the tensor pipe activity, then a blank line. Writes nothing
// without counters.
void writeMeasuredText(std::ostream& out, const TraceAnalysis& a, size_t top);

}  // namespace fuselab
