// The critical path (profiling/analysis/critical_path/CriticalPath.h) in analyze's text and
// JSON: each step's segments and totals by kind and rank, and what halving
// the ops longest on the path would buy.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

#include "profiling/analysis/critical_path/CriticalPath.h"
#include "profiling/analysis/critical_path/PathTraces.h"

namespace fuselab {

// A section for the text summary: the median step's breakdown and longest
// segments, the what-ifs. Ends with a newline. `traces`: those the path was
// read against.
void writeCriticalPathText(std::ostream& out, const PathTraces& traces, const CriticalPathAnalysis& path);

// {"steps": [{"name", "start_ns", "wall_ns", "segments": [{"kind", "rank",
// "track", "name", "start_ns", "dur_ns"}], "by_kind": {...}, "by_rank":
// [{"rank", "ns"}]}], "what_if": [...]}; times relative to `origin_ns`.
nlohmann::ordered_json criticalPathJson(const PathTraces& traces, const CriticalPathAnalysis& path, int64_t origin_ns);

}  // namespace fuselab
