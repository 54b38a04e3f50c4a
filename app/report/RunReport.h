// The analysis of a run (several ranks of one job) as a text summary and as
// JSON, for `fuselab analyze DIR` / `fuselab analyze FILE FILE...`.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "profiling/analysis/run/RunAnalysis.h"

namespace fuselab {

struct RunReportOptions {
  size_t top_collectives = 10;  // rows of the collectives table in the text summary (by wait)
};

// Ranks found and missing, alignment, per-rank table, the collectives that
// waited longest, stragglers. Ends with a newline.
std::string runText(const Run& run, const RunAnalysis& analysis, const RunReportOptions& options = {});

// Fields are documented in docs/commands.md ("fuselab analyze --json", on a run).
// Points in time are on the aligned axis, relative to the run's first event.
nlohmann::ordered_json runJson(const Run& run, const RunAnalysis& analysis);

}  // namespace fuselab
