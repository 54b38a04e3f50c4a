// The roofline part of `fuselab analyze`: a short text section and the JSON
// fields (kernels[] roofline fields, `ceilings`, `roofline`). docs/commands.md
// ("fuselab analyze --json") documents the fields.
#pragma once

#include <cstddef>
#include <ostream>

#include <nlohmann/json.hpp>

#include "profiling/analysis/single/Analysis.h"

namespace fuselab {

// flops, bytes, intensity, achieved_tflops, achieved_gbps, speed_of_light,
// bound, precision, work_known, work_unknown (null where unknown).
nlohmann::ordered_json rooflineFieldsJson(const RooflineFigures& f);

// {source, gpu, values: {bf16_tflops, fp16_tflops, tf32_tflops, fp32_tflops, copy_gbps}} or null.
nlohmann::ordered_json ceilingsJson(const std::optional<Ceilings>& c);

// {rules, total, gpu_ops: [...]}; points in time relative to `origin`.
nlohmann::ordered_json rooflineJson(const Trace& trace, const TraceAnalysis& a, int64_t origin);

// The ceilings, totals and the top kernel names by time with their speed of light.
void writeRooflineText(std::ostream& out, const TraceAnalysis& a, size_t top);

}  // namespace fuselab
