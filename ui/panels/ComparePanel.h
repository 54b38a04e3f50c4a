// The A/B comparison: two timelines one above the other, B shifted so the
// chosen step starts where A's does, with a synchronized zoom and pan (moving
// either moves both), and the diff table (profiling/analysis/compare/TraceCompare.h)
// beside them: median [min - max] of each side and whether a change is beyond
// noise. A side may hold repeated runs besides the one shown; all count as
// samples. ImGui only; the caller decides what A and B are.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/compare/FlameDiff.h"
#include "profiling/analysis/compare/TraceCompare.h"
#include "profiling/trace/Trace.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"

namespace fuselab::ui {

class ComparePanel {
 public:
  void setA(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis, std::string label);
  void setB(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis, std::string label);
  // More runs of the same side: samples for the table, not drawn. setA/setB drop them.
  void addRepeatA(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis);
  void addRepeatB(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis);
  size_t runsA() const { return a_.trace ? 1 + a_.repeats.size() : 0; }
  size_t runsB() const { return b_.trace ? 1 + b_.repeats.size() : 0; }
  void setAlignStep(size_t ordinal);  // 0-based
  bool hasA() const { return a_.trace != nullptr; }
  bool hasB() const { return b_.trace != nullptr; }

  // Fills the remaining content region: the step selector, the two
  // timelines (left) and the diff table (right, `table_width` wide; 0 puts the
  // table under the timelines).
  void draw(const Theme& theme, float table_width = 0);

  // The comparison of A and B (null until both are set).
  const TraceComparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }
  TimelineView& viewA() { return a_.view; }
  TimelineView& viewB() { return b_.view; }

 private:
  struct Side {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const TraceAnalysis> analysis;
    std::string label;
    TimelineView view;
    std::vector<std::pair<std::shared_ptr<const Trace>, std::shared_ptr<const TraceAnalysis>>> repeats;
  };
  static std::vector<CompareInput> inputs(const Side& side);
  void recompute(bool refit = true);
  void drawTable(const Theme& theme);
  void drawSide(Side& side, const char* id, const char* tag, float height, const Theme& theme);
  void synchronize();
  void drawFlameDiff(const Theme& theme);

  Side a_, b_;
  // The differential flame graph, instead of the timelines when shown;
  // made when first shown for these traces and this metric.
  bool show_flame_ = false;
  FlameMetric flame_metric_ = FlameMetric::Cpu;
  std::optional<FlameDiff> flame_diff_;
  FlameMetric flame_diff_metric_ = FlameMetric::Cpu;
  uint32_t flame_zoom_ = 0;
  size_t align_step_ = 0;
  std::optional<TraceComparison> comparison_;
  bool fit_pending_ = false;
  // The views' ranges after the last synchronization (to see which one moved).
  double last_a_start_ = 0, last_a_end_ = 0, last_b_start_ = 0, last_b_end_ = 0;
};

}  // namespace fuselab::ui
