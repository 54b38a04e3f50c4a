// The numbers behind the timeline: the verdict (overhead- or compute-bound)
// with its figures, GPU utilization, the idle breakdown by cause, launch
// delays, the diagnostics; and sortable tables of steps, kernels, CPU ops and
// idle time per stream. Clicking a row finds its events on the timeline.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/run/RunVerdict.h"
#include "profiling/trace/Trace.h"
#include "ui/Theme.h"
#include "ui/TimelineView.h"

namespace fuselab::ui {

class StatsPanel {
 public:
  // The summary column: verdict, utilization, idle breakdown, diagnostics.
  // With a run open, `run_verdict` replaces the verdict of the merged trace
  // (whose GPU utilization counts a spinning NCCL kernel as busy).
  void drawSummary(const Trace* trace, const TraceAnalysis* analysis, const Theme& theme, TimelineView& timeline,
                   const RunVerdict* run_verdict = nullptr);
  // The tables, as tab items: call between ImGui::BeginTabBar and EndTabBar
  // (the caller may add tabs of its own).
  void drawTableTabs(const Trace* trace, const TraceAnalysis* analysis, const Theme& theme, TimelineView& timeline);

 private:
  void drawStepsTable(const TraceAnalysis& a, TimelineView& timeline);
  void drawKernelTable(const TraceAnalysis& a, TimelineView& timeline);
  void drawCpuOpTable(const TraceAnalysis& a, TimelineView& timeline);
  void drawStreamIdleTable(const Trace& trace, const TraceAnalysis& a, const Theme& theme);

  // Row orders after the user's sort; rebuilt when the analysis changes.
  const TraceAnalysis* sorted_for_ = nullptr;
  std::vector<uint32_t> kernel_order_;
  std::vector<uint32_t> cpu_order_;
};

}  // namespace fuselab::ui
