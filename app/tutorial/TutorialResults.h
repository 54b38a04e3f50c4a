// How `fuselab tutorial` tells a step's checked expectations: as text (each
// met / NOT MET with the value measured, its explanation, the hint when not
// met) and as the "expectations", "met" and "total" fields of its JSON.
// With a trace, results that name events list them as evidence; a run's
// results (several rank traces) have none.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "app/tutorial/TutorialPresets.h"
#include "profiling/analysis/expectations/Expectations.h"

namespace fuselab {

void printTutorialResults(const TutorialPreset& p, const std::vector<ExpectationResult>& results,
                          const Trace* trace = nullptr);

void addTutorialResultsJson(nlohmann::ordered_json& j, const TutorialPreset& p,
                            const std::vector<ExpectationResult>& results, const Trace* trace = nullptr);

}  // namespace fuselab
