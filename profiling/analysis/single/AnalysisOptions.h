// What analyzeTrace takes: the gap threshold (one home for its default and
// range) and the ceilings and rules of the roofline.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/work/Roofline.h"

namespace fuselab {

struct AnalysisOptions {
  // Idle gaps shorter than this (and not host wait) are "kernel wait": the
  // normal delay between back-to-back GPU ops. HTA's consecutive_kernel_delay.
  int64_t gap_threshold_ns = 30'000;

  // Range accepted for gap_threshold_ns (the CLI and UI check it; analyzeTrace
  // clamps into it).
  static constexpr int64_t kMinGapThresholdNs = 0;
  static constexpr int64_t kMaxGapThresholdNs = 1'000'000'000;  // 1 s

  // Ceilings measured on GPUs (by GPU name); a trace whose GPU has none here
  // uses the published peaks of its GPU name (Roofline.h).
  std::vector<Ceilings> measured_ceilings;
  RooflineRules roofline_rules;
};

}  // namespace fuselab
