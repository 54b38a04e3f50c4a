// `fuselab compare --json`: the comparison of two sides as a JSON document
// (layout in docs/commands.md, "fuselab compare").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profiling/analysis/compare/TraceCompare.h"

namespace fuselab {

inline constexpr int kCompareJsonFormatVersion = 2;

nlohmann::ordered_json comparisonJson(const TraceComparison& c, const std::vector<std::string>& a_files,
                                      const std::vector<std::string>& b_files);

}  // namespace fuselab
