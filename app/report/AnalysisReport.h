// The analysis of one trace as a text summary (for the terminal) and as JSON
// (for scripts). Used by `fuselab analyze` and, after a capture, by `capture`.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "profiling/analysis/single/Analysis.h"

namespace fuselab {

struct ReportOptions {
  size_t top_kernels = 10;   // rows of the kernel table in the text summary
  size_t top_cpu_ops = 10;   // rows of the CPU op table in the text summary
  size_t longest_gaps = 20;  // gaps listed individually in the JSON
};

// Steps, kernels per step, utilization, idle breakdown, verdict with its
// numbers, top kernels and CPU ops, diagnostics. Ends with a newline.
std::string analysisText(const Trace& trace, const TraceAnalysis& analysis, const ReportOptions& options = {});

// The same figures, complete tables included. Times are integer nanoseconds;
// points in time are relative to trace.begin_ns (the earliest event).
// Fields are documented in docs/commands.md ("fuselab analyze --json").
nlohmann::ordered_json analysisJson(const Trace& trace, const TraceAnalysis& analysis,
                                    const ReportOptions& options = {});

}  // namespace fuselab
